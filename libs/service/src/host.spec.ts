import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import * as grpcJs from '@grpc/grpc-js';
import { createServer as createGrpcServer, HealthService } from '@llmgw/grpc';
import { ConfigError, listenAddress, logLevel } from '@llmgw/config';
import { createLogger, inSpan } from '@llmgw/observability';
import { defineService, runService, startService, tracingInstalled, type Readiness } from './index';
import { waitUntil } from '@llmgw/contracts/wait';

const VERSION = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')).version as string;

const schema = z
  .object({
    listen: listenAddress().default('127.0.0.1:0'),
    admin_listen: listenAddress().default('127.0.0.1:0'),
    log_level: logLevel(),
    drain_deadline: z.number().int().positive().default(5_000),
    ready: z.boolean().default(true),
  })
  .strict();

function capture() {
  const stream = new PassThrough();
  const lines: any[] = [];
  stream.on('data', (b: Buffer) =>
    b
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => lines.push(JSON.parse(l))),
  );
  return { stream, lines };
}
const flush = () => new Promise((r) => setImmediate(r));

/** A small service: one gRPC listener with the health service, one HTTP listener, steps that record the order they ran in. */
function demo(order: string[] = [], extra?: (ctx: any) => void) {
  return defineService({
    name: 'demo',
    schema,
    settings: (c) => c,
    async start(ctx) {
      ctx.onClose('store', () => void order.push('store'));
      const grpc = createGrpcServer();
      new HealthService('SERVING').addTo(grpc);
      const grpcAddr = await ctx.listenGrpc('grpc', grpc, ctx.config.listen);
      const http = createHttpServer((_req, res) => res.end('hi'));
      ctx.onClose('before-http', () => void order.push('before-http'));
      await ctx.listenHttp('http', http, '127.0.0.1:0');
      ctx.onClose('last', () => void order.push('last'));
      ctx.readiness(() => ({ ready: ctx.config.ready, status: ctx.config.ready ? 'ready' : 'waiting', detail: 7 }));
      ctx.describe({ note: 'demo' });
      extra?.(ctx);
      return { grpcAddr };
    },
  });
}

describe('startService', () => {
  it('parses the config once and freezes it; an invalid one is a ConfigError naming every issue', async () => {
    await expect(startService(demo(), { config: { listen: 'nope', log_level: 'loud' }, configSource: 'demo.yaml' })).rejects.toThrow(ConfigError);
    await expect(startService(demo(), { config: { listen: 'nope', log_level: 'loud' }, configSource: 'demo.yaml' })).rejects.toThrow(
      /demo\.yaml[\s\S]*listen[\s\S]*log_level/,
    );
    const { stream } = capture();
    const s = await startService(demo(), { config: {}, logDestination: stream });
    try {
      expect(Object.isFrozen(s.config)).toBe(true);
      expect(s.config).toMatchObject({ listen: '127.0.0.1:0', log_level: 'info', ready: true });
      expect(s.urls.admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await s.close();
    }
  });

  it('stamps service, the package version and the instance id on every line; one listening line with every URL', async () => {
    const { stream, lines } = capture();
    const s = await startService(demo(), { config: {}, logDestination: stream });
    s.log.info('ordinary');
    s.log.child({}).warn('child');
    await s.close();
    await flush();
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const l of lines) expect(l).toMatchObject({ service: 'demo', version: VERSION, instance: s.instanceId });
    const listening = lines.filter((l) => l.msg === 'listening');
    expect(listening).toEqual([expect.objectContaining({ url: s.urls.grpc, note: 'demo', urls: { grpc: s.urls.grpc, http: s.urls.http, admin: s.adminUrl } })]);
    expect(s.service.grpcAddr).toBe(s.urls.grpc.replace('http://', ''));
  });

  it('gives each request a child logger with request, key and project ids', async () => {
    const { stream, lines } = capture();
    let reqLog: any;
    const s = await startService(
      demo([], (ctx) => (reqLog = ctx.requestLog({ reqId: 'r-1', keyId: 'k-1', projectId: 'p-1' }))),
      { config: {}, logDestination: stream },
    );
    reqLog.info({ model: 'm' }, 'request completed');
    await s.close();
    await flush();
    expect(lines.find((l) => l.msg === 'request completed')).toMatchObject({
      reqId: 'r-1',
      keyId: 'k-1',
      projectId: 'p-1',
      model: 'm',
      service: 'demo',
      instance: s.instanceId,
    });
  });

  it('serves /metrics, /healthz and /readyz from the readiness callback on the admin listener', async () => {
    const { stream } = capture();
    const s = await startService(demo(), { config: { ready: false }, logDestination: stream });
    try {
      const metrics = await fetch(`${s.adminUrl}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('process_cpu_user_seconds_total{service="demo"}');
      const health = await fetch(`${s.adminUrl}/healthz`);
      expect(await health.json()).toEqual({ status: 'ok', service: 'demo', version: VERSION, instance: s.instanceId });
      const ready = await fetch(`${s.adminUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'waiting', detail: 7 });
    } finally {
      await s.close();
    }
    const s2 = await startService(demo(), { config: { ready: true }, logDestination: stream });
    try {
      const ready = await fetch(`${s2.adminUrl}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', detail: 7 }]);
    } finally {
      await s2.close();
    }
  });

  it('takes a CPU profile on demand and refuses a bad duration', async () => {
    const { stream } = capture();
    const s = await startService(demo(), { config: {}, logDestination: stream });
    try {
      const bad = await s.admin.inject({ url: '/debug/pprof/profile?seconds=0' });
      expect(bad.statusCode).toBe(400);
      const res = await s.admin.inject({ url: '/debug/pprof/profile?seconds=0.2' });
      expect(res.statusCode).toBe(200);
      const profile = JSON.parse(res.body);
      expect(Array.isArray(profile.nodes)).toBe(true);
      expect(profile.nodes.length).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });

  it('shuts down in reverse order: listeners stop accepting first, /readyz says draining meanwhile', async () => {
    const order: string[] = [];
    const { stream } = capture();
    let readyDuringDrain: { code: number; body: unknown } | undefined;
    const s = await startService(
      demo(order, (ctx) =>
        ctx.onClose('probe', async () => {
          const r = await fetch(`${s.adminUrl}/readyz`);
          readyDuringDrain = { code: r.status, body: await r.json() };
        }),
      ),
      { config: {}, logDestination: stream },
    );
    const httpUrl = s.urls.http;
    await s.close();
    await s.close();
    expect(order).toEqual(['last', 'before-http', 'store']);
    expect(readyDuringDrain).toEqual({ code: 503, body: { status: 'draining' } });
    await expect(fetch(httpUrl)).rejects.toThrow();
    expect(await s.ready()).toEqual<Readiness>({ ready: false, status: 'draining' });
  });

  it('abandons a step still running after the drain deadline and runs the rest', async () => {
    const order: string[] = [];
    const { stream, lines } = capture();
    let sawAbort = false;
    const s = await startService(
      demo(order, (ctx) => ctx.onClose('stuck', (signal: AbortSignal) => new Promise<void>(() => signal.addEventListener('abort', () => (sawAbort = true))))),
      { config: { drain_deadline: 50 }, logDestination: stream },
    );
    await s.close();
    await flush();
    expect(sawAbort).toBe(true);
    expect(order).toEqual(['last', 'before-http', 'store']);
    expect(lines.find((l) => l.msg.includes('abandoned'))).toMatchObject({ step: 'stuck', level: 'error' });
  });

  it('stops what it started when start fails', async () => {
    const order: string[] = [];
    const failing = defineService({
      name: 'failing',
      schema,
      settings: (c) => c,
      async start(ctx) {
        ctx.onClose('opened', () => void order.push('opened'));
        throw new Error('boom');
      },
    });
    await expect(startService(failing, { config: {}, log: createLogger({ service: 'x', level: 'silent' }) })).rejects.toThrow('boom');
    expect(order).toEqual(['opened']);
  });
});

describe('runService', () => {
  it('returns 2 with the message on stderr for a bad config', async () => {
    const writes: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((s: any) => (writes.push(String(s)), true));
    try {
      expect(await runService(demo(), { config: { log_level: 'loud' } })).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(writes.join('')).toMatch(/^llmgw demo: invalid configuration[\s\S]*log_level/);
  });

  it('runs until SIGTERM, then shuts down in order and returns 0', async () => {
    const order: string[] = [];
    const { stream, lines } = capture();
    const done = runService(demo(order), { config: {}, logDestination: stream });
    await waitFor(() => lines.some((l) => l.msg === 'listening'));
    process.emit('SIGTERM');
    expect(await done).toBe(0);
    expect(order).toEqual(['last', 'before-http', 'store']);
  });
});

describe('tracing', () => {
  it('installs nothing without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const s = await startService(demo(), { config: {}, log: createLogger({ service: 'x', level: 'silent' }), env: {} });
    try {
      expect(tracingInstalled()).toBe(false);
    } finally {
      await s.close();
    }
  });

  it('exports spans over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT and puts the trace id in log lines', async () => {
    const received: Array<{ url: string; body: string }> = [];
    const collector = createHttpServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ url: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const port = (collector.address() as any).port;
    const { stream, lines } = capture();
    const s = await startService(demo(), { config: {}, logDestination: stream, env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` } });
    let traceId = '';
    try {
      expect(tracingInstalled()).toBe(true);
      await inSpan('demo.work', { 'llmgw.test': 1 }, async (span) => {
        traceId = span.spanContext().traceId;
        s.log.info('inside a span');
      });
    } finally {
      await s.close();
      collector.close();
    }
    await flush();
    expect(tracingInstalled()).toBe(false);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(lines.find((l) => l.msg === 'inside a span')).toMatchObject({ traceId });
    expect(received.map((r) => r.url)).toContain('/v1/traces');
    expect(received.map((r) => r.body).join('')).toContain(traceId);
  });
});

const waitFor = (cond: () => boolean) => waitUntil(cond, 'the condition');

describe('ctx.grpcServer: the largest request message', () => {
  const json = {
    requestSerialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
    requestDeserialize: (b: Buffer) => JSON.parse(b.toString()),
    responseSerialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
    responseDeserialize: (b: Buffer) => JSON.parse(b.toString()),
  };
  const DEF = {
    call: { path: '/llmgw.test.v1.Size/Call', requestStream: false, responseStream: false, originalName: 'call', ...json },
  } as grpcJs.ServiceDefinition;
  const Client = grpcJs.makeGenericClientConstructor(DEF, 'Size');
  const call = (c: grpcJs.Client, s: string) =>
    new Promise<{ n: number }>((resolve, reject) =>
      (c as any).call({ s }, (err: grpcJs.ServiceError | null, res: { n: number }) => (err ? reject(err) : resolve(res))),
    );

  function sized(maxReceiveMessageBytes?: number) {
    return defineService({
      name: 'sized',
      schema,
      settings: (c) => c,
      async start(ctx) {
        const { address } = await ctx.grpcServer('grpc', {
          address: '127.0.0.1:0',
          authorize: {} as never,
          services: [{ definition: DEF, implementation: { call: (c: any, cb: any) => cb(null, { n: c.request.s.length }) } }],
          ...(maxReceiveMessageBytes !== undefined ? { maxReceiveMessageBytes } : {}),
        });
        return { address };
      },
    });
  }

  it('refuses a request over maxReceiveMessageBytes with RESOURCE_EXHAUSTED before the handler, and serves the next one; 16 MiB by default', async () => {
    const { stream } = capture();
    const small = await startService(sized(65_536), { config: {}, logDestination: stream });
    const big = await startService(sized(), { config: {}, logDestination: stream });
    const c1 = new Client(small.service.address, grpcJs.credentials.createInsecure());
    const c2 = new Client(big.service.address, grpcJs.credentials.createInsecure());
    try {
      await expect(call(c1, 'x'.repeat(100_000))).rejects.toMatchObject({ code: grpcJs.status.RESOURCE_EXHAUSTED });
      expect(await call(c1, 'x'.repeat(60_000))).toEqual({ n: 60_000 });
      expect(await call(c2, 'x'.repeat(1_000_000))).toEqual({ n: 1_000_000 });
      await expect(call(c2, 'x'.repeat(17 * 1024 * 1024))).rejects.toMatchObject({ code: grpcJs.status.RESOURCE_EXHAUSTED });
    } finally {
      c1.close();
      c2.close();
      await small.close();
      await big.close();
    }
  });
});

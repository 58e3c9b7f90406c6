import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { ensureDemoTenant, start as startAccounting } from '@llmgw/app-accounting';
import { start as startAdmission } from '@llmgw/app-admission';
import { start as startRouter } from '@llmgw/app-router';
import { start as startSimEngine } from '@llmgw/app-sim-engine';
import { createLogger } from '@llmgw/observability';
import { waitUntil } from '@llmgw/testing';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { Writable } from 'node:stream';

/**
 * One request through the real services, each started in this process
 * through its public entry: router → admission (remote, gRPC) → accounting
 * (gRPC, key resolution) → sim-engine (HTTP). One tracer provider with an
 * in-memory exporter sees every span, so the test can check that they form
 * one trace, and that the engine received that trace in `traceparent`.
 */
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const quiet = createLogger({ service: 'trace-e2e', level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

/** `traceparent` headers the sim-engine's HTTP server received, by path. */
const engineSaw: Array<{ path: string; traceparent?: string }> = [];
let enginePort = 0;
const onRequest = (msg: unknown) => {
  const { request, server } = msg as { request: IncomingMessage; server: Server };
  if ((server.address() as AddressInfo | null)?.port !== enginePort) return;
  const tp = request.headers.traceparent;
  engineSaw.push({ path: request.url ?? '', traceparent: typeof tp === 'string' ? tp : undefined });
};

const closers: Array<() => Promise<unknown>> = [];
let routerUrl = '';
let secret = '';

beforeAll(async () => {
  provider.register();
  subscribe('http.server.request.start', onRequest);
  try {
    const engine = await startSimEngine({ host: '127.0.0.1', port: 0, models: ['m'], prefillTps: 0, decodeTps: 0, logLevel: 'silent' });
    closers.push(() => engine.close());
    enginePort = engine.port;
    const endpoints = [{ name: 'sim-1', url: engine.url, model: 'm', engine: 'vllm' as const }];

    const acct = await startAccounting({
      config: { listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', database_url: 'pglite:memory', log_level: 'silent' },
      log: quiet,
    });
    closers.push(() => acct.close());
    const demo = await ensureDemoTenant(acct.tenancy);
    secret = demo.secret!;

    const adm = await startAdmission({ config: { listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', log_level: 'silent', endpoints } as never, log: quiet });
    closers.push(() => adm.close());

    const router = await startRouter({
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        log_level: 'silent',
        endpoints,
        // No credits: the request's Acquire goes to the admission service.
        admission: { mode: 'remote', address: adm.url, credit_interval: 0 },
        tenancy: { enabled: true, accounting_address: acct.url },
      } as never,
      log: quiet,
    });
    closers.push(() => router.close());
    routerUrl = router.url;
  } catch (e) {
    await closeAll();
    throw e;
  }
});

async function closeAll(): Promise<void> {
  while (closers.length) await closers.pop()!().catch(() => undefined);
}

afterAll(async () => {
  await closeAll();
  unsubscribe('http.server.request.start', onRequest);
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

it('one request is one trace: router stages, key resolution, counters, the admission wait, the proxy attempt, and the engine got its traceparent', async () => {
  exporter.reset();
  const res = await fetch(`${routerUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, 'x-request-id': 'trace-e2e-1' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 }),
  });
  expect(res.status).toBe(200);
  await res.json();

  const spans = () => exporter.getFinishedSpans();
  const named = (n: string) => spans().filter((s) => s.name === n);
  await waitUntil(() => named('router.finish').length === 1 && spans().some((s) => s.name.startsWith('router chat')), 'the request span to end', {
    timeoutMs: 20_000,
  });

  const root = spans().find((s) => s.name.startsWith('router ') && !s.name.startsWith('router.'))!;
  expect(root.attributes['llmgw.request_id']).toBe('trace-e2e-1');
  const traceId = root.spanContext().traceId;
  const inTrace = spans().filter((s) => s.spanContext().traceId === traceId);
  const one = (n: string) => {
    const found = inTrace.filter((s) => s.name === n);
    expect({ name: n, count: found.length }).toEqual({ name: n, count: 1 });
    return found[0];
  };

  // Router stages, each a child of the request span.
  for (const st of ['authenticate', 'parse', 'resolve_model', 'reserve_quota', 'admit', 'attempt', 'finish'])
    expect(parentOf(one(`router.${st}`))).toBe(root.spanContext().spanId);

  // Key resolution: the router's client span, and accounting's server span continuing it over gRPC metadata.
  const resolveClient = one('grpc.client ResolveKey');
  expect(parentOf(resolveClient)).toBe(one('router.authenticate').spanContext().spanId);
  expect(parentOf(one('grpc.server /llmgw.accounting.v1.KeyResolver/ResolveKey'))).toBe(resolveClient.spanContext().spanId);

  // The counter calls, inside quota reservation.
  expect(parentOf(one('tenancy.counters.reserve'))).toBe(one('router.reserve_quota').spanContext().spanId);

  // The admission wait: Acquire from the admit stage, answered by the admission service in the same trace.
  const acquire = one('grpc.client Acquire');
  expect(parentOf(acquire)).toBe(one('router.admit').spanContext().spanId);
  expect(parentOf(one('grpc.server /llmgw.admission.v1.Admission/Acquire'))).toBe(acquire.spanContext().spanId);

  // The proxy attempt, and the engine received it as the parent in traceparent.
  const proxy = one('router.proxy_attempt');
  expect(parentOf(proxy)).toBe(one('router.attempt').spanContext().spanId);
  expect(proxy.attributes['llmgw.endpoint']).toBe('sim-1');
  const sent = engineSaw.filter((e) => e.path === '/v1/chat/completions');
  expect(sent).toHaveLength(1);
  expect(sent[0].traceparent).toBe(`00-${traceId}-${proxy.spanContext().spanId}-01`);

  // Nothing the request caused started a trace of its own.
  const requestSpans = spans().filter((s) => s.name.startsWith('router') || /ResolveKey|Acquire|counters/.test(s.name));
  expect(new Set(requestSpans.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
});

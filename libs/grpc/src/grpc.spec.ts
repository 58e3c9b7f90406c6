import * as grpc from '@grpc/grpc-js';
import { LlmgwError } from '@llmgw/errors';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  childCallOptions,
  clientCredentials,
  createServer,
  deadlineIn,
  fromGrpcError,
  initCa,
  issueCert,
  listen,
  peerCommonName,
  readCertFiles,
  remainingMs,
  shutdown,
  toGrpcError,
  unary,
  withRequestId,
  type CertFiles,
} from './index';
import { TEST_SERVICE, TestClient, callAsync } from './test-service';
import { waitUntil } from '@llmgw/contracts/wait';

describe('unary server over plaintext', () => {
  let server: grpc.Server;
  let client: grpc.Client;
  let lastSignal: AbortSignal | undefined;
  const logged: object[] = [];

  beforeAll(async () => {
    server = createServer();
    server.addService(TEST_SERVICE, {
      call: unary({
        schema: z.object({ op: z.enum(['echo', 'llmgw', 'crash', 'slow']), text: z.string().optional() }).strict(),
        log: { error: (o) => logged.push(o) },
        handler: async (req, ctx) => {
          lastSignal = ctx.signal;
          if (req.op === 'llmgw') throw new LlmgwError('LLMGW_ERR_ADMISSION_QUEUE_FULL', 'band bronze is full', { retryAfterSeconds: 2 });
          if (req.op === 'crash') throw new Error('secret: db password is hunter2');
          if (req.op === 'slow') await new Promise((r) => ctx.signal.addEventListener('abort', r));
          return { text: req.text, requestId: ctx.requestId, remaining: remainingMs(ctx.call) };
        },
      }),
      watch: (call: grpc.ServerWritableStream<unknown, unknown>) => call.write({ hello: 1 }), // never ends
    });
    const port = await listen(server, '127.0.0.1', 0);
    client = new TestClient(`127.0.0.1:${port}`, clientCredentials());
  });
  afterAll(async () => {
    client.close();
    await shutdown(server, 1_000);
  });

  it('binds an ephemeral port and answers', async () => {
    const res = await callAsync(client, { op: 'echo', text: 'hi' });
    expect(res.text).toBe('hi');
    expect(res.remaining).toBeNull(); // Infinity serialises to null: no deadline sent
  });

  it('propagates x-request-id, and makes one up when absent', async () => {
    expect((await callAsync(client, { op: 'echo' }, {}, withRequestId('req-abc-123'))).requestId).toBe('req-abc-123');
    expect((await callAsync(client, { op: 'echo' })).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    [{ op: 'nope' }, grpc.status.INVALID_ARGUMENT, 'LLMGW_ERR_INVALID_ARGUMENT', /op/],
    [{ op: 'echo', extra: 1 }, grpc.status.INVALID_ARGUMENT, 'LLMGW_ERR_INVALID_ARGUMENT', /extra/],
    [{ op: 'llmgw' }, grpc.status.RESOURCE_EXHAUSTED, 'LLMGW_ERR_ADMISSION_QUEUE_FULL', /^band bronze is full$/],
    [{ op: 'crash' }, grpc.status.INTERNAL, 'LLMGW_ERR_INTERNAL', /^internal error$/],
  ])('%j fails with gRPC %i / %s', async (req, status, code, msg) => {
    const err = await callAsync(client, req).catch((e) => e);
    expect(err.code).toBe(status);
    expect(err.details).toMatch(msg);
    expect(err.details).not.toContain('hunter2');
    const back = fromGrpcError(err);
    expect(back.code).toBe(code);
  });

  it('carries retry-after across the hop and logs only unexpected errors', async () => {
    logged.length = 0;
    const e1 = fromGrpcError(await callAsync(client, { op: 'llmgw' }).catch((e) => e));
    expect(e1.retryAfterSeconds).toBe(2);
    expect(logged).toHaveLength(0);
    await callAsync(client, { op: 'crash' }, {}, withRequestId('req-crash-1')).catch(() => undefined);
    expect(logged).toEqual([expect.objectContaining({ reqId: 'req-crash-1', method: '/llmgw.test.v1.Test/Call' })]);
  });

  it('a client deadline ends the call with DEADLINE_EXCEEDED and aborts the handler signal', async () => {
    // 'slow' waits for its abort signal and nothing else: only the deadline can end it. Not shorter: a deadline
    // that fires before the request has left (a stalled event loop) never reaches the handler.
    const err = await callAsync(client, { op: 'slow' }, { deadline: deadlineIn(1_000) }).catch((e) => e);
    expect(fromGrpcError(err).code).toBe('LLMGW_ERR_DEADLINE_EXCEEDED');
    await waitUntil(() => lastSignal?.aborted, 'the handler signal to abort');
    expect(lastSignal?.aborted).toBe(true);
  });

  it('the handler sees the caller deadline', async () => {
    const res = await callAsync(client, { op: 'echo' }, { deadline: deadlineIn(120_000) });
    expect(res.remaining).toBeGreaterThan(60_000);
    expect(res.remaining).toBeLessThanOrEqual(120_000);
  });
});

describe('errors and deadlines without a server', () => {
  it('an unreachable server is LLMGW_ERR_UNAVAILABLE', async () => {
    const probe = createServer();
    const port = await listen(probe, '127.0.0.1', 0);
    await shutdown(probe, 100); // now nothing listens on that port
    const c = new TestClient(`127.0.0.1:${port}`, clientCredentials());
    const err = await callAsync(c, { op: 'echo' }, { deadline: deadlineIn(3_000) }).catch((e) => e);
    c.close();
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    expect(fromGrpcError(err).code).toBe('LLMGW_ERR_UNAVAILABLE');
  });

  it.each([
    [grpc.status.NOT_FOUND, 'LLMGW_ERR_NOT_FOUND'],
    [grpc.status.PERMISSION_DENIED, 'LLMGW_ERR_PERMISSION_DENIED'],
    [grpc.status.UNAUTHENTICATED, 'LLMGW_ERR_AUTH_INVALID'],
    [grpc.status.CANCELLED, 'LLMGW_ERR_CANCELLED'],
    [grpc.status.UNKNOWN, 'LLMGW_ERR_INTERNAL'],
  ])('bare status %i maps to %s', (code, want) => {
    expect(fromGrpcError({ code, details: 'x', metadata: new grpc.Metadata() }).code).toBe(want);
  });

  it('toGrpcError ignores a forged non-catalogue llmgw-code on the way back', () => {
    const md = new grpc.Metadata();
    md.set('llmgw-code', 'LLMGW_ERR_MADE_UP');
    expect(fromGrpcError({ code: grpc.status.NOT_FOUND, details: 'x', metadata: md }).code).toBe('LLMGW_ERR_NOT_FOUND');
    expect(toGrpcError(new LlmgwError('LLMGW_ERR_NOT_FOUND', 'node n1')).code).toBe(grpc.status.NOT_FOUND);
  });

  it('childCallOptions caps at the parent deadline and at maxMs', () => {
    const parent = { getDeadline: () => deadlineIn(60_000) };
    const d1 = (childCallOptions(parent, 120_000).deadline as Date).getTime() - Date.now();
    expect(d1).toBeGreaterThan(30_000);
    expect(d1).toBeLessThanOrEqual(60_000);
    const d2 = (childCallOptions(parent, 200).deadline as Date).getTime() - Date.now();
    expect(d2).toBeLessThanOrEqual(200);
    expect(childCallOptions({ getDeadline: () => Infinity })).toEqual({});
  });
});

describe('graceful shutdown', () => {
  it('force-closes a stream that never ends once the timeout passes', async () => {
    const server = createServer();
    server.addService(TEST_SERVICE, {
      call: unary({ handler: () => ({}) }),
      watch: (call: grpc.ServerWritableStream<unknown, unknown>) => call.write({ n: 1 }),
    });
    const port = await listen(server, '127.0.0.1', 0);
    const c = new TestClient(`127.0.0.1:${port}`, clientCredentials());
    const stream = (c as any).watch({}) as grpc.ClientReadableStream<unknown>;
    const ended = new Promise<number>((r) => stream.on('error', (e: grpc.ServiceError) => r(e.code)));
    await new Promise((r) => stream.once('data', r));
    const t0 = Date.now();
    // The stream never ends by itself: returning at all means it was force-closed.
    await shutdown(server, 300);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250); // a lower bound: a busy machine only adds to it
    expect(await ended).toBe(grpc.status.CANCELLED);
    c.close();
  });
});

describe('mTLS with a private CA', () => {
  let dir: string;
  let ca: CertFiles;
  let server: grpc.Server;
  let port: number;
  let tls: { ca: Buffer; cert: Buffer; key: Buffer };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-grpc-'));
    ca = await initCa({ dir: join(dir, 'ca') });
    const srv = await readCertFiles(await issueCert({ ca, dir, name: 'server', commonName: 'inventory', sans: ['127.0.0.1', 'localhost'], usage: 'server' }));
    const cli = await readCertFiles(await issueCert({ ca, dir, name: 'node-7', commonName: 'node-7', usage: 'client' }));
    tls = { ca: await readCertFiles(ca).then((x) => x.cert), ...cli };
    server = createServer();
    server.addService(TEST_SERVICE, {
      call: unary({ handler: (_req, ctx) => ({ cn: peerCommonName(ctx.call) ?? null }) }),
      watch: (call: grpc.ServerWritableStream<unknown, unknown>) => call.end(),
    });
    port = await listen(server, '127.0.0.1', 0, { tls: { ca: tls.ca, ...srv, requireClientCert: true } });
  });
  afterAll(async () => {
    await shutdown(server, 500);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the server reads the client certificate CN', async () => {
    const c = new TestClient(`127.0.0.1:${port}`, clientCredentials({ tls }));
    expect(await callAsync(c, {}, { deadline: deadlineIn(5_000) })).toEqual({ cn: 'node-7' });
    c.close();
  });

  it('a client without a certificate fails with UNAVAILABLE', async () => {
    const c = new TestClient(`127.0.0.1:${port}`, clientCredentials({ tls: { ca: tls.ca } }));
    const err = await callAsync(c, {}, { deadline: deadlineIn(5_000) }).catch((e) => e);
    c.close();
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('a client certificate from another CA fails with UNAVAILABLE', async () => {
    const other = await initCa({ dir: join(dir, 'other-ca') });
    const rogue = await readCertFiles(await issueCert({ ca: other, dir: join(dir, 'other-ca'), name: 'rogue', commonName: 'node-7', usage: 'client' }));
    const c = new TestClient(`127.0.0.1:${port}`, clientCredentials({ tls: { ca: tls.ca, ...rogue } }));
    const err = await callAsync(c, {}, { deadline: deadlineIn(5_000) }).catch((e) => e);
    c.close();
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
  }, 20_000);

  it('the server certificate names the bare IP as a SAN (so dialing 127.0.0.1 verifies)', async () => {
    const { X509Certificate } = await import('node:crypto');
    const { readFileSync } = await import('node:fs');
    const cert = new X509Certificate(readFileSync(join(dir, 'server.crt')));
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.verify(new X509Certificate(tls.ca).publicKey)).toBe(true);
  });
});

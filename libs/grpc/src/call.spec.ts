import * as grpc from '@grpc/grpc-js';
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { LlmgwError } from '@llmgw/errors';
import { activeTraceId, inSpan } from '@llmgw/observability';
import { callUnary, clientCredentials, createServer, listen, shutdown, unary } from './index';
import { TEST_SERVICE, TestClient } from './test-service';
import { waitUntil } from '@llmgw/contracts/wait';

/**
 * The call primitive against a real server on an ephemeral port: what the
 * handler saw (request id, traceparent, the trace id active inside it) and how
 * often it was called.
 */
describe('callUnary: deadlines, idempotent-only retries, request id and traceparent', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let server: grpc.Server;
  let client: grpc.Client;
  let calls = 0;
  let failFirst = 0;
  const seen: Array<{ requestId: string; traceparent?: string; traceId?: string }> = [];

  beforeAll(async () => {
    provider.register();
    server = createServer();
    server.addService(TEST_SERVICE, {
      call: unary<{ op: string }, object>({
        handler: async (req, ctx) => {
          calls++;
          seen.push({ requestId: ctx.requestId, traceparent: ctx.metadata.get('traceparent')[0] as string | undefined, traceId: activeTraceId() });
          if (calls <= failFirst) throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'not serving yet');
          if (req.op === 'hang') await new Promise((r) => ctx.signal.addEventListener('abort', r));
          return { ok: true };
        },
      }),
      watch: () => undefined,
    });
    const port = await listen(server, '127.0.0.1', 0);
    client = new TestClient(`127.0.0.1:${port}`, clientCredentials());
  });
  afterAll(async () => {
    client.close();
    await shutdown(server, 1_000);
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => {
    calls = 0;
    failFirst = 0;
    seen.length = 0;
    exporter.reset();
  });

  it('sends x-request-id and the caller trace as traceparent; the handler runs in a child span of the same trace', async () => {
    let callerTrace = '';
    await inSpan('caller', {}, async (span) => {
      callerTrace = span.spanContext().traceId;
      await callUnary(client, 'call', { op: 'echo' }, { requestId: 'req-trace-1', deadlineMs: 5_000 });
    });
    expect(seen).toHaveLength(1);
    expect(seen[0].requestId).toBe('req-trace-1');
    expect(seen[0].traceparent).toMatch(new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-01$`));
    expect(seen[0].traceId).toBe(callerTrace);
    const spans = exporter.getFinishedSpans();
    const names = spans.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['caller', 'grpc.client call', 'grpc.server /llmgw.test.v1.Test/Call']));
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([callerTrace]));
    const clientSpan = spans.find((s) => s.name === 'grpc.client call')!;
    const serverSpan = spans.find((s) => s.name.startsWith('grpc.server'))!;
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
  });

  it('retries an idempotent call that met UNAVAILABLE, and succeeds', async () => {
    failFirst = 2;
    await expect(callUnary(client, 'call', { op: 'echo' }, { idempotent: true, retries: 2, retryDelayMs: 1, deadlineMs: 10_000 })).resolves.toEqual({
      ok: true,
    });
    expect(calls).toBe(3);
  });

  it('gives up after `retries` and rejects with the last error', async () => {
    failFirst = 10;
    const err = await callUnary(client, 'call', { op: 'echo' }, { idempotent: true, retries: 1, retryDelayMs: 1, deadlineMs: 10_000 }).catch((e) => e);
    expect(err).toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
    expect(calls).toBe(2);
  });

  it('never retries a call that is not idempotent', async () => {
    failFirst = 1;
    await expect(callUnary(client, 'call', { op: 'echo' }, { retryDelayMs: 1, deadlineMs: 10_000 })).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
    expect(calls).toBe(1);
  });

  it('ends with DEADLINE_EXCEEDED at the deadline, and CANCELLED when the signal aborts', async () => {
    // Not shorter: a deadline that fires before the request has left (a stalled event loop) never reaches the handler.
    await expect(callUnary(client, 'call', { op: 'hang' }, { deadlineMs: 1_000, idempotent: true })).rejects.toMatchObject({
      code: 'LLMGW_ERR_DEADLINE_EXCEEDED',
    });
    expect(calls).toBe(1);
    const ac = new AbortController();
    const p = callUnary(client, 'call', { op: 'hang' }, { signal: ac.signal, deadlineMs: 30_000 });
    await waitFor(() => calls === 2);
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: 'LLMGW_ERR_CANCELLED' });
  });
});

const waitFor = (cond: () => boolean) => waitUntil(cond, 'the call to reach the server');

describe('callUnary: what it tells the dependency monitor', () => {
  it('lost when no server is reached; ok when one answers, even with an UNAVAILABLE it sent itself', async () => {
    const events: string[] = [];
    const dependency = { lost: () => void events.push('lost'), ok: () => void events.push('ok') };
    const server = createServer();
    server.addService(TEST_SERVICE, {
      call: unary<{ op: string }, object>({
        handler: async (req) => {
          if (req.op === 'standby') throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'a standby');
          return { ok: true };
        },
      }),
      watch: () => undefined,
    });
    const port = await listen(server, '127.0.0.1', 0);
    const up = new TestClient(`127.0.0.1:${port}`, clientCredentials());
    const down = new TestClient('127.0.0.1:1', clientCredentials());
    try {
      await callUnary(up, 'call', { op: 'ok' }, { deadlineMs: 5000, dependency });
      await expect(callUnary(up, 'call', { op: 'standby' }, { deadlineMs: 5000, dependency })).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
      await expect(callUnary(down, 'call', { op: 'ok' }, { deadlineMs: 5000, dependency })).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
      expect(events).toEqual(['ok', 'ok', 'lost']);
    } finally {
      up.close();
      down.close();
      await shutdown(server, 1000);
    }
  });
});

import * as grpc from '@grpc/grpc-js';
import { LlmgwError, isLlmgwError } from '@llmgw/errors';
import { z } from 'zod';
import { callUnary, clientCredentials, createServer, fromGrpcError, listen, serverStream, shutdown, unary } from './index';
import { TEST_SERVICE, TestClient } from './test-service';
import { waitUntil } from '@llmgw/contracts/wait';

describe('serverStream and callUnary', () => {
  let server: grpc.Server;
  let client: grpc.Client;
  let foreverAborted = false;

  beforeAll(async () => {
    server = createServer();
    server.addService(TEST_SERVICE, {
      call: unary({ schema: z.object({ x: z.number() }), handler: (req, ctx) => ({ y: req.x * 2, requestId: ctx.requestId }) }),
      watch: serverStream({
        schema: z.object({ n: z.number().int().min(0).optional(), fail: z.boolean().optional(), forever: z.boolean().optional() }),
        handler: async (req, ctx) => {
          if (req.forever) {
            while (!ctx.signal.aborted) await new Promise((r) => setTimeout(r, 10)).then(() => ctx.write({ tick: 1 }));
            foreverAborted = true;
            return;
          }
          for (let i = 0; i < (req.n ?? 2); i++) await ctx.write({ i, big: 'x'.repeat(64 * 1024) });
          if (req.fail) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', 'shard s9 is unknown');
        },
      }),
    });
    client = new TestClient(`127.0.0.1:${await listen(server, '127.0.0.1', 0)}`, clientCredentials());
  });
  afterAll(async () => {
    client.close();
    await shutdown(server, 500);
  });

  function collect(req: unknown): Promise<{ items: any[]; code: number; err?: grpc.ServiceError }> {
    const s = (client as any).watch(req) as grpc.ClientReadableStream<any>;
    const items: any[] = [];
    return new Promise((resolve) => {
      s.on('data', (d) => items.push(d));
      s.on('error', (err: grpc.ServiceError) => resolve({ items, code: err.code, err }));
      s.on('status', (st) => {
        if (st.code === grpc.status.OK) resolve({ items, code: 0 });
      });
    });
  }

  it.each([
    [{ n: 200 }, 200, grpc.status.OK], // 12.5 MiB in total: exercises backpressure
    [{ n: 0 }, 0, grpc.status.OK],
    [{ n: 2, fail: true }, 2, grpc.status.NOT_FOUND],
    [{ n: -1 }, 0, grpc.status.INVALID_ARGUMENT],
  ])('%j → %i messages then status %i', async (req, count, code) => {
    const r = await collect(req);
    expect(r.items).toHaveLength(count);
    expect(r.items.map((m) => m.i)).toEqual([...Array(count).keys()]);
    expect(r.code).toBe(code);
    if (r.err) expect(fromGrpcError(r.err).code).toBe(code === grpc.status.NOT_FOUND ? 'LLMGW_ERR_NOT_FOUND' : 'LLMGW_ERR_INVALID_ARGUMENT');
  });

  it('a cancelled stream aborts the producer', async () => {
    foreverAborted = false;
    const s = (client as any).watch({ forever: true }) as grpc.ClientReadableStream<any>;
    s.on('error', () => undefined);
    await new Promise((r) => s.once('data', r));
    s.cancel();
    await waitUntil(() => foreverAborted, 'the producer to abort');
    expect(foreverAborted).toBe(true);
  });

  it('callUnary resolves the response, sends the request id, and rejects with an LlmgwError', async () => {
    await expect(callUnary(client, 'call', { x: 21 }, { requestId: 'req-42-abc', deadlineMs: 5_000 })).resolves.toEqual({ y: 42, requestId: 'req-42-abc' });
    const err: LlmgwError = await callUnary<never>(client, 'call', { x: 'no' }).catch((e: LlmgwError) => e);
    expect(isLlmgwError(err)).toBe(true);
    expect(err.code).toBe('LLMGW_ERR_INVALID_ARGUMENT');
    await expect(callUnary(client, 'nope', {})).rejects.toThrow(/no method nope/);
  });
});

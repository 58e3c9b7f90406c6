import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Principal } from '@llmgw/contracts';
import { createLogger } from '@llmgw/observability';
import { LlmgwError } from '@llmgw/errors';
import type { RouterCore } from '../router';
import type { TenancyHooks } from '../tenancy';
import type { Lease } from '@llmgw/admission-core';
import type { EndpointView } from '@llmgw/scheduling';
import { ServingPlan } from '../serving/plan';
import type { RequestContext } from './context';
import { fail, finish } from './finish';
import { contextOf, stageRouter } from './testing';

function fakeRes() {
  const out: { status?: number; headers?: Record<string, string>; body?: string; destroyed: boolean } = { destroyed: false };
  const res = {
    headersSent: false,
    destroyed: false,
    writeHead(status: number, headers: Record<string, string>) {
      out.status = status;
      out.headers = headers;
      this.headersSent = true;
    },
    end(body: string) {
      out.body = body;
    },
    destroy() {
      out.destroyed = true;
    },
  };
  return { res: res as unknown as ServerResponse, out };
}

describe('stage: finish', () => {
  let core: RouterCore;
  const calls: string[] = [];
  const records: unknown[] = [];
  beforeAll(async () => {
    const tenancy: TenancyHooks = {
      enabled: false,
      authenticate: async () => undefined,
      reserve: async (_p, model) => ({ id: 'r', model }),
      settle: (r, u) => calls.push(`settle ${r.model} ${u ? `${u.model}:${u.promptTokens}+${u.completionTokens}` : 'none'}`),
      recordUsage: (rec) => records.push(rec),
      close: async () => undefined,
    };
    core = await stageRouter({ endpoints: [{ name: 'a', url: 'http://127.0.0.1:9', model: 'm' }] }, tenancy);
  });
  afterAll(() => core.close());
  beforeEach(() => {
    calls.length = 0;
    records.length = 0;
  });

  /**
   * A request for `m` whose serving plan reserved for `m` and, when `served` is given, was
   * admitted to serve that model of the chain [m, f] (the only one with an endpoint) on pool `p`.
   */
  async function planned(served?: 'm' | 'f'): Promise<RequestContext> {
    const c = contextOf('chat');
    const lease: Lease = { id: 'l', pool: 'p', release: (o) => calls.push(`release ${o?.status} ${o?.promptTokens}+${o?.completionTokens}`) };
    const admission = { acquire: async () => ({ kind: 'granted' as const, lease, pool: 'p', queuedMs: 0 }) };
    const views = (m: string) => (m === served ? [{ id: `${m}-1`, pool: 'p', poolPriority: 0, draining: false, available: true } as EndpointView] : []);
    c.plan = new ServingPlan(
      { ...core.state, admission, views, catalog: { chain: () => ['m', 'f'] } },
      { id: c.reqId, model: 'm', band: 'gold', tenant: 't', estimatedTokens: 1, client: c },
    );
    await c.plan.reserve();
    if (served) await c.plan.admit();
    return c;
  }

  it('releases the lease, settles at the served model, records usage and counts the request', async () => {
    const c = await planned('f');
    c.pool = 'p';
    c.status = 200;
    c.usage = { promptTokens: 5, completionTokens: 7, cachedTokens: 0 };
    finish(core.state, c);
    expect(calls).toEqual(['release 200 5+7', 'settle m f:5+7']);
    expect(records).toEqual([
      expect.objectContaining({ requestId: 'req-test', model: 'm', servedModel: 'f', status: 200, promptTokens: 5, completionTokens: 7 }),
    ]);
    const metrics = await core.registry.metrics();
    expect(metrics).toMatch(/^llmgw_requests_total\{model="f",pool="p",status="200"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^llmgw_tokens_total\{model="f",direction="completion"[^}]*\} 7$/m);
  });

  it('records the adapter when its base model served, and none when a fallback did', async () => {
    for (const served of ['m', 'f'] as const) {
      const c = await planned(served);
      c.adapter = { base: 'm', name: 'sql', id: 0, scale: 1 };
      c.status = 200;
      finish(core.state, c);
    }
    expect(records).toEqual([expect.objectContaining({ servedModel: 'm', adapter: 'sql' }), expect.not.objectContaining({ adapter: expect.anything() })]);
  });

  it('settles a reservation with no usage when the request failed before an engine answered', async () => {
    const c = await planned();
    c.status = 502;
    finish(core.state, c);
    expect(calls).toEqual(['settle m none']);
  });

  it('answers a failure in OpenAI error JSON with the request id', () => {
    const { res, out } = fakeRes();
    const c = contextOf('chat');
    Object.assign(c, { res });
    fail(core.state, c, new LlmgwError('LLMGW_ERR_MODEL_NOT_FOUND', 'no such model', { param: 'model' }));
    expect(c.status).toBe(404);
    expect(out.headers?.['x-request-id']).toBe('req-test');
    expect(JSON.parse(out.body!).error).toMatchObject({ code: 'model_not_found', param: 'model' });
  });

  it("writes the request's one line through its child logger: request id, key id and project id", async () => {
    const stream = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    stream.on('data', (b: Buffer) =>
      b
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((l) => lines.push(JSON.parse(l))),
    );
    const state = { ...core.state, log: createLogger({ service: 'router', level: 'info', destination: stream }) };
    const c = contextOf('chat', { 'x-request-id': 'req-test' });
    c.principal = { keyId: 'key-1', projectId: 'proj-1' } as Principal;
    c.resolved = 'm';
    c.status = 200;
    finish(state, c);
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'request completed', reqId: 'req-test', keyId: 'key-1', projectId: 'proj-1', service: 'router', status: 200 }),
    ]);
  });

  it('records 499 and cuts the connection when the client went away', () => {
    const { res, out } = fakeRes();
    const c = contextOf('chat');
    Object.assign(c, { res });
    c.clientLeft();
    fail(core.state, c, new Error('aborted'));
    expect(c.status).toBe(499);
    expect(out.destroyed).toBe(true);
  });
});

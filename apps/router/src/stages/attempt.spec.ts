import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Principal } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { waitUntil } from '@llmgw/testing';
import type { RouterCore } from '../router';
import type { Reservation, TenancyHooks } from '../tenancy';
import { admit } from './admit';
import { attemptUpstream, sessionKeyOf } from './attempt';
import type { RequestContext } from './context';
import { reserveQuota } from './reserve';
import { resolveModel } from './resolve-model';
import { contextOf, stageRouter } from './testing';

// The attempt stage runs behind the others, so it is driven through the client app (inject):
// retries on another endpoint, fallbacks down the chain, and the tenancy re-check before a fallback.
const principal: Principal = {
  keyId: 'k',
  keyPrefix: 'sk-llmgw-x',
  projectId: 'p',
  teamId: 't',
  orgId: 'o',
  band: 'gold',
  limits: { rpm: [], tpm: [], budgets: [] },
};

/** Tenancy that accepts every key and refuses to rebind to the models named in `refuse`. */
function scriptedTenancy(refuse: Set<string>) {
  const rebinds: Array<[string, string]> = [];
  const settled: Array<{ reservation: string; usageModel?: string }> = [];
  const hooks: TenancyHooks = {
    enabled: true,
    authenticate: async () => principal,
    reserve: async (_p, model) => ({ id: 'r1', model }),
    async rebind(r: Reservation, model: string) {
      rebinds.push([r.model, model]);
      if (refuse.has(model)) throw new LlmgwError('LLMGW_ERR_BUDGET_EXCEEDED', `no budget for ${model}`);
      return { id: r.id, model };
    },
    settle: (r, u) => settled.push({ reservation: r.model, usageModel: u?.model }),
    recordUsage: () => undefined,
    close: async () => undefined,
  };
  return { hooks, rebinds, settled };
}

async function engine(status: number): Promise<{ url: string; hits: number; close(): Promise<void> }> {
  const e: { url: string; hits: number; close(): Promise<void> } = { url: '', hits: 0, close: async () => undefined };
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/metrics') return void res.end('vllm:num_requests_running 0\nvllm:num_requests_waiting 0\n');
      e.hits++;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        status === 200
          ? JSON.stringify({ id: 'x', object: 'chat.completion', choices: [], usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 } })
          : '{"error":{"message":"busy"}}',
      );
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  e.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  e.close = () => new Promise<void>((r) => (srv.closeAllConnections(), srv.close(() => r())));
  return e;
}

describe('stage: attempt', () => {
  let busy: Awaited<ReturnType<typeof engine>>;
  let good: Awaited<ReturnType<typeof engine>>;
  let core: RouterCore;
  let t: ReturnType<typeof scriptedTenancy>;
  beforeAll(async () => {
    busy = await engine(503);
    good = await engine(200);
    t = scriptedTenancy(new Set(['refused']));
    core = await stageRouter(
      {
        retries: 3,
        models: [{ name: 'm', fallbacks: ['refused', 'f'] }, { name: 'refused' }, { name: 'f' }, { name: 'r', fallbacks: ['refused'] }],
        endpoints: [
          { name: 'busy', url: busy.url, model: 'm' },
          { name: 'ok', url: good.url, model: 'refused' },
          { name: 'f1', url: good.url, model: 'f' },
          { name: 'r1', url: busy.url, model: 'r' },
        ],
      },
      t.hooks,
    );
  });
  afterAll(async () => {
    await core.close();
    await busy.close();
    await good.close();
  });
  beforeEach(() => {
    t.rebinds.length = 0;
    t.settled.length = 0;
    busy.hits = 0;
    good.hits = 0;
  });

  const post = (model: string) =>
    core.client.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      payload: { model, messages: [{ role: 'user', content: 'x' }] },
    });

  it('retries a 503 elsewhere, skips a fallback tenancy refuses, and serves the next one', async () => {
    const res = await post('m');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-llmgw-served-model']).toBe('f');
    expect(busy.hits).toBe(1);
    expect(t.rebinds).toEqual([
      ['m', 'refused'],
      ['m', 'f'],
    ]);
    // Settled by the finish stage, which runs after the answer's last byte went out (no durable-usage hold here).
    await waitUntil(() => t.settled.length > 0, 'the settle');
    expect(t.settled).toEqual([{ reservation: 'f', usageModel: 'f' }]);
  });

  it('answers with the refusal when it was the last thing in the chain', async () => {
    const res = await post('r');
    expect(res.statusCode).toBe(429);
    expect(res.json().error.llmgw_code).toBe('LLMGW_ERR_BUDGET_EXCEEDED');
    expect(good.hits).toBe(0);
  });
});

describe('tier-0 session key (sessionKeyOf)', () => {
  it.each([
    ['the header wins over the body user', 'conv-1', 'alice', undefined, 'conv-1'],
    ["the body's user when there is no header", undefined, 'alice', undefined, 'alice'],
    ['an empty header falls back to the user', '', 'alice', undefined, 'alice'],
    ['neither (or a user that is not a string) is no key', undefined, 42, undefined, undefined],
    ['an empty user is no key', undefined, '', undefined, undefined],
    ["with auth the key is namespaced by the key's project", 'conv-1', undefined, 'proj-a', 'proj-a\u001fconv-1'],
  ])('%s', (_label, header, user, project, expected) => {
    expect(sessionKeyOf(header, user, project)).toBe(expected);
  });

  it('equal session ids of two projects are different keys', () => {
    expect(sessionKeyOf('1', undefined, 'a')).not.toBe(sessionKeyOf('1', undefined, 'b'));
  });
});

describe('stage: attempt, a stream under way', () => {
  let core: RouterCore;
  let release: (() => void) | undefined;
  const servers: http.Server[] = [];
  const listen = async (handler: http.RequestListener) => {
    const srv = http.createServer(handler);
    servers.push(srv);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  };
  beforeAll(async () => {
    // One event, then the stream stays open until the test ends it.
    const url = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/metrics') return void res.end('vllm:num_requests_running 0\nvllm:num_requests_waiting 0\n');
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n');
        release = () => res.end('data: [DONE]\n\n');
      });
    });
    core = await stageRouter({ models: [{ name: 'm' }], endpoints: [{ name: 'e1', url, model: 'm' }] });
  });
  afterAll(async () => {
    await core.close();
    for (const s of servers) await new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())));
  });

  it('lets the prompt go once its first bytes reached the client: no other attempt can follow', async () => {
    const prompt = 'a long prompt '.repeat(200);
    let c: RequestContext | undefined;
    let done: Promise<void> | undefined;
    const front = await listen((_req, res) => {
      c = contextOf('chat', {}, { model: 'm', stream: true, messages: [{ role: 'user', content: prompt }] });
      Object.assign(c, { res });
      done = (async () => {
        resolveModel(core.state, c!);
        await reserveQuota(c!);
        await admit(c!);
        await attemptUpstream(core.state, c!);
      })();
    });
    const got = await fetch(front, { method: 'POST', body: '{}' });
    const reader = got.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"content":"a"');
    // The stream is still open: the context no longer holds the body or its bytes.
    expect(c!.buf.length).toBe(0);
    expect(c!.body.messages).toBeUndefined();
    release!();
    while (!(await reader.read()).done);
    await done;
    expect(c!.status).toBe(200);
  });
});

import OpenAI from 'openai';
import type { RouterConfigInput } from '@llmgw/config';
import { start, type RunningRouter } from '../src/main';
import { chatJson, fakeUpstream, metricValue, ok, silentLog, type FakeHandler, type FakeUpstream } from './helpers';
import { waitUntil } from '@llmgw/testing';

const MSG = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 4 };

const status =
  (code: number, headers: Record<string, string> = {}): FakeHandler =>
  (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message: `engine says ${code}`, type: 'x' } }));
  };

/** Streams one SSE event, then kills the connection. */
const dieMidStream: FakeHandler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('data: {"choices":[{"index":0,"delta":{"content":"par"}}]}\n\n');
  setTimeout(() => res.socket?.destroy(), 30);
};

const sseOk: FakeHandler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end('data: {"choices":[{"index":0,"delta":{"content":"fine"}}]}\n\ndata: [DONE]\n\n');
};

describe('router reliability against fake upstreams', () => {
  const ups: FakeUpstream[] = [];
  let router: RunningRouter | undefined;

  async function setup(n: number, cfg: Partial<RouterConfigInput> = {}, model = 'm'): Promise<{ r: RunningRouter; client: OpenAI; u: FakeUpstream[] }> {
    const u: FakeUpstream[] = [];
    for (let i = 0; i < n; i++) u.push(await fakeUpstream());
    ups.push(...u);
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 100,
        stale_after: 400,
        endpoints: u.map((x, i) => ({ name: `u${i}`, url: x.url, model })),
        ...cfg,
      },
    });
    return { r: router, client: new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'x', maxRetries: 0 }), u };
  }

  afterEach(async () => {
    await router?.close();
    router = undefined;
    await Promise.all(ups.splice(0).map((u) => u.close()));
  });

  it.each([
    ['503', status(503)],
    ['429', status(429, { 'retry-after': '1' })],
    ['a refused connection', null],
  ])('retries %s on a different endpoint', async (_what, handler) => {
    // No scrapes to speak of: three failed scrapes of a closed u0 (100 ms apart) would open its breaker
    // before a slow request got routed, which would then skip u0 without a retry.
    const { r, client, u } = await setup(2, { cooldown_seconds: 0, scrape_interval: 60_000 });
    if (handler) u[0].handler = handler;
    else await u[0].close();
    const { response } = await client.chat.completions.create(MSG, { headers: { 'x-llmgw-replica': 'u0' } }).withResponse();
    expect(response.headers.get('x-llmgw-replica')).toBe('u1');
    expect(u[1].hits).toHaveLength(1);
    if (handler) expect(u[0].hits).toHaveLength(1);
    expect(await metricValue(r.adminUrl, 'llmgw_retries_total', { model: 'm' })).toBe(1);
  });

  it('gives up after `retries` attempts, each on a new endpoint', async () => {
    const { client, u } = await setup(4, { retries: 2, cooldown_seconds: 0 });
    for (const x of u) x.handler = status(503);
    const err = await client.chat.completions.create(MSG).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(503);
    expect(err.code).toBe('upstream_overloaded');
    const hits = u.map((x) => x.hits.length);
    expect(hits.reduce((a, b) => a + b)).toBe(3);
    expect(Math.max(...hits)).toBe(1);
  });

  it('does not retry a client error (400) and normalises it', async () => {
    const { client, u } = await setup(2, { cooldown_seconds: 0 });
    for (const x of u) x.handler = status(400);
    const err = await client.chat.completions.create(MSG).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.message).toContain('engine says 400');
    expect(u[0].hits.length + u[1].hits.length).toBe(1);
  });

  it('never retries after the first byte reached the client', async () => {
    const { client, u } = await setup(2, { cooldown_seconds: 0 });
    u[0].handler = dieMidStream;
    u[1].handler = sseOk;
    const stream = await client.chat.completions.create({ ...MSG, stream: true }, { headers: { 'x-llmgw-replica': 'u0' } });
    const got: string[] = [];
    const err = await (async () => {
      for await (const c of stream) got.push(c.choices[0]?.delta?.content ?? '');
    })().catch((e) => e);
    expect(got).toEqual(['par']);
    expect(err).toBeDefined();
    expect(u[1].hits).toHaveLength(0);
  });

  it('does not retry a slow first token: it answers 504', async () => {
    const { client, u } = await setup(2, { cooldown_seconds: 0, timeouts: { first_token: 150 } });
    u[0].handler = () => undefined; // never answers: only the first-token timeout can end this
    const err = await client.chat.completions.create(MSG, { headers: { 'x-llmgw-replica': 'u0' } }).catch((e) => e);
    expect(err.status).toBe(504);
    expect(err.code).toBe('upstream_timeout');
    expect(u[1].hits).toHaveLength(0);
  });

  it('ends a stream that goes idle between tokens', async () => {
    const { client, u } = await setup(1, { timeouts: { idle: 150 } });
    u[0].handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n');
    };
    const stream = await client.chat.completions.create({ ...MSG, stream: true });
    // The upstream never ends the stream: only the idle timeout can.
    const err = await (async () => {
      for await (const _ of stream) void _;
    })().catch((e) => e);
    expect(err).toBeDefined();
  });

  it('cools an erroring endpoint down for cooldown_seconds', async () => {
    const { client, u } = await setup(2, { cooldown_seconds: 30 });
    u[0].handler = status(503);
    await client.chat.completions.create(MSG, { headers: { 'x-llmgw-replica': 'u0' } });
    u[0].handler = ok;
    for (let i = 0; i < 6; i++) await client.chat.completions.create(MSG);
    expect(u[0].hits).toHaveLength(1);
    expect(u[1].hits).toHaveLength(7);
  });

  it('opens the breaker after consecutive failures, half-opens after backoff, closes on a good probe', async () => {
    // Open periods of 1 s and 2 s: each spans the checks and requests made while it lasts, on a busy machine too.
    const { r, client, u } = await setup(2, { cooldown_seconds: 0, retries: 0, breaker: { failure_threshold: 2, base_backoff: 1000, max_backoff: 5000 } });
    const health = r.core.health;
    u[0].handler = status(500);
    const pinned = { headers: { 'x-llmgw-replica': 'u0' } };
    await expect(client.chat.completions.create(MSG, pinned)).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    expect(health.breaker('u0')).toBe('closed');
    await expect(client.chat.completions.create(MSG, pinned)).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    expect(health.breaker('u0')).toBe('open');
    expect(await metricValue(r.adminUrl, 'llmgw_endpoint_breaker_state', { replica: 'u0' })).toBe(2);
    // Open: even a pinned request goes elsewhere.
    const { response } = await client.chat.completions.create(MSG, pinned).withResponse();
    expect(response.headers.get('x-llmgw-replica')).toBe('u1');
    expect(u[0].hits).toHaveLength(2);
    await waitUntil(() => health.breaker('u0') === 'half_open', "health.breaker('u0') === 'half_open'", { timeoutMs: 15_000, everyMs: 25 });
    // A failed probe re-opens it with a doubled backoff (t0 before the failure: the whole backoff lies after it).
    const t0 = Date.now();
    await expect(client.chat.completions.create(MSG, pinned)).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    expect(health.breaker('u0')).toBe('open');
    u[0].handler = ok;
    await waitUntil(() => health.breaker('u0') === 'half_open', "health.breaker('u0') === 'half_open'", { timeoutMs: 15_000, everyMs: 25 });
    // A lower bound only (a busy machine makes it longer, never shorter): the backoff doubled from 1000 ms.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2000);
    const probe = await client.chat.completions.create(MSG, pinned).withResponse();
    expect(probe.response.headers.get('x-llmgw-replica')).toBe('u0');
    expect(health.breaker('u0')).toBe('closed');
  });

  it('trips the breaker after three failed scrapes', async () => {
    const { r, u } = await setup(2, { breaker: { base_backoff: 60_000 } });
    u[0].metrics = 500;
    await waitUntil(() => r.core.health.breaker('u0') === 'open', "r.core.health.breaker('u0') === 'open'", { timeoutMs: 15_000, everyMs: 25 });
    expect(r.core.scraper.state('u0')!.consecutiveFailures).toBeGreaterThanOrEqual(3);
  });

  it('a stale endpoint loses score but stays routable', async () => {
    // base_backoff 0: the breaker the failing scrapes trip is half-open again at once. With 1 ms it doubled
    // on every failed scrape (100 ms apart), and a scrape between the wait below and the request re-opened it.
    const { r, client, u } = await setup(2, { breaker: { base_backoff: 0 }, profiles: { chat: { scorers: { queue: 1 } } } });
    await waitUntil(
      () => r.core.scraper.state('u0')?.stale === false && r.core.scraper.state('u1')?.stale === false,
      "r.core.scraper.state('u0')?.stale === false && r.core.scraper.state('u1')?.stale === false",
      { everyMs: 25 },
    );
    u[0].metrics = 503;
    await waitUntil(() => r.core.scraper.state('u0')?.stale === true, "r.core.scraper.state('u0')?.stale === true", { everyMs: 25 });
    await waitUntil(
      async () => (await metricValue(r.adminUrl, 'llmgw_endpoint_metrics_stale', { replica: 'u0' })) === 1,
      "(await metricValue(r.adminUrl, 'llmgw_endpoint_metrics_stale', { replica: 'u0' })) === 1",
      { everyMs: 25 },
    );
    await waitUntil(() => r.core.health.breaker('u0') !== 'open', "r.core.health.breaker('u0') !== 'open'", { timeoutMs: 15_000, everyMs: 25 });
    const res = await client.chat.completions.create(MSG, { headers: { 'x-llmgw-replica': 'u0' } }).withResponse();
    expect(res.response.headers.get('x-llmgw-replica')).toBe('u0');
    // Unpinned, both are scored: the stale one at half the fresh one's queue score.
    await client.chat.completions.create(MSG);
    const q0 = await metricValue(r.adminUrl, 'llmgw_scorer_value', { scorer: 'queue', replica: 'u0' });
    const q1 = await metricValue(r.adminUrl, 'llmgw_scorer_value', { scorer: 'queue', replica: 'u1' });
    expect(q1).toBe(1);
    expect(q0).toBeCloseTo(0.5);
  });

  it('keeps a session on one replica until it passes load_factor × the average (a profile with the session scorer)', async () => {
    const held: Array<() => void> = [];
    // No built-in profile has tier-0 session affinity (chat routes by prefix): configure one, as an operator would.
    const { client, u } = await setup(3, {
      profiles: { chat: { scorers: { session: 3, queue: 1, kv: 1, inflight: 1 }, picker: { type: 'max-score' } } },
      prefix: { session_affinity: { load_factor: 2 } },
    });
    for (const x of u) {
      x.handler = (_req, res) => {
        held.push(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(chatJson());
        });
      };
    }
    const session = { headers: { 'x-session-id': 'conversation-42' } };
    const replicaOf = (p: Promise<{ response: Response }>) => p.then((x) => x.response.headers.get('x-llmgw-replica'));
    // Sequential: always the same replica.
    const seq: Array<string | null> = [];
    for (let i = 0; i < 5; i++) {
      const p = replicaOf(client.chat.completions.create(MSG, session).withResponse());
      await waitUntil(() => held.length === 1, 'held.length === 1', { everyMs: 25 });
      held.shift()!();
      seq.push(await p);
    }
    expect(new Set(seq).size).toBe(1);
    const home = seq[0];
    // Concurrent, 3 replicas, load_factor 2: a replica may hold ceil(2 × (total + 1) / 3) requests, so
    // home takes the 1st and 2nd; the 3rd would put it past the bound and goes to the next replica on the ring.
    const ps: Array<Promise<string | null>> = [];
    for (let i = 0; i < 6; i++) {
      ps.push(replicaOf(client.chat.completions.create(MSG, session).withResponse()));
      await waitUntil(() => held.length === i + 1, 'held.length === i + 1', { everyMs: 25 });
    }
    while (held.length) held.shift()!();
    const conc = await Promise.all(ps);
    expect(conc[0]).toBe(home);
    expect(conc[1]).toBe(home);
    expect(conc[2]).not.toBe(home);
    expect(conc[3]).toBe(home);
    // The tier-0 labels appear in the header because this profile has the session scorer.
    const last = client.chat.completions.create(MSG, session).withResponse();
    await waitUntil(() => held.length === 1, 'held.length === 1', { everyMs: 25 });
    held.shift()!();
    const { response } = await last;
    expect([response.headers.get('x-llmgw-replica'), response.headers.get('x-llmgw-cache-decision')]).toEqual([home, 'session_hit']);
  });

  it('falls back to the next model and says so in x-llmgw-served-model; draining endpoints get nothing', async () => {
    const a = await fakeUpstream();
    const b = await fakeUpstream();
    ups.push(a, b);
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        models: [{ name: 'big', fallbacks: ['small'] }, { name: 'small' }],
        endpoints: [
          { name: 'big-0', url: a.url, model: 'big', draining: true },
          { name: 'small-0', url: b.url, model: 'small' },
        ],
      },
    });
    const client = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const { response } = await client.chat.completions.create({ ...MSG, model: 'big' }).withResponse();
    expect(response.headers.get('x-llmgw-served-model')).toBe('small');
    expect(a.hits).toHaveLength(0);
    expect(b.hits[0].body.model).toBe('small');
    expect(await metricValue(router.adminUrl, 'llmgw_fallbacks_total', { model: 'big', served_model: 'small' })).toBe(1);
  });

  it('answers 503 no_endpoint when nothing can serve', async () => {
    const { client } = await setup(1, { models: [{ name: 'm' }] }, 'm');
    // The one endpoint starts draining:
    (router!.core.source as any).set([{ name: 'd', url: ups[0].url, model: 'm', draining: true }]);
    const err = await client.chat.completions.create(MSG).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(503);
    expect(err.code).toBe('no_endpoint');
    expect(err.headers.get('retry-after')).toBeTruthy();
    expect(ups[0].hits).toHaveLength(0);
  });

  it('forgets an endpoint that leaves the source: no more requests, no more series', async () => {
    const { r, client, u } = await setup(2);
    await client.chat.completions.create(MSG, { headers: { 'x-llmgw-replica': 'u0' } });
    const text = async () => (await fetch(`${r.adminUrl}/metrics`)).text();
    await waitUntil(
      async () => (await text()).includes('llmgw_endpoint_metrics_stale{replica="u0"'),
      '(await text()).includes(\'llmgw_endpoint_metrics_stale{replica="u0"\')',
      { everyMs: 25 },
    );
    (r.core.source as unknown as { set(l: unknown[]): void }).set([{ name: 'u1', url: u[1].url, model: 'm' }]);
    const after = await text();
    expect(after).not.toMatch(/replica="u0"/);
    const { response } = await client.chat.completions.create(MSG, { headers: { 'x-llmgw-replica': 'u0' } }).withResponse();
    expect(response.headers.get('x-llmgw-replica')).toBe('u1');
  });

  it('prefers the highest-priority pool and spills to the next only while it is saturated', async () => {
    const a = await fakeUpstream();
    const b = await fakeUpstream();
    ups.push(a, b);
    a.metrics = 'vllm:num_requests_running 8\nvllm:num_requests_waiting 40\nvllm:kv_cache_usage_perc 0.5\n';
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 100,
        endpoints: [
          { name: 'h100-0', url: a.url, model: 'm', pool: 'h100', priority: 100 },
          { name: 'a100-0', url: b.url, model: 'm', pool: 'a100', priority: 50 },
        ],
      },
    });
    const r = router;
    const client = new OpenAI({ baseURL: `${r.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const pool = async () => (await client.chat.completions.create(MSG).withResponse()).response.headers.get('x-llmgw-pool');
    await waitUntil(() => r.core.scraper.state('h100-0')?.stats?.waiting === 40, "r.core.scraper.state('h100-0')?.stats?.waiting === 40", { everyMs: 25 });
    expect(await pool()).toBe('a100');
    a.metrics = 'vllm:num_requests_running 1\nvllm:num_requests_waiting 0\nvllm:kv_cache_usage_perc 0.1\n';
    await waitUntil(() => r.core.scraper.state('h100-0')?.stats?.waiting === 0, "r.core.scraper.state('h100-0')?.stats?.waiting === 0", { everyMs: 25 });
    expect(await pool()).toBe('h100');
    expect(await pool()).toBe('h100');
  });

  it('lets a running stream finish on close, within shutdown_grace', async () => {
    const { r, client, u } = await setup(1, { shutdown_grace: 5000 });
    u[0].handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n');
      setTimeout(() => res.end('data: {"choices":[{"index":0,"delta":{"content":"b"}}]}\n\ndata: [DONE]\n\n'), 300);
    };
    const stream = await client.chat.completions.create({ ...MSG, stream: true });
    const got: string[] = [];
    const reading = (async () => {
      for await (const c of stream) got.push(c.choices[0]?.delta?.content ?? '');
    })();
    await waitUntil(() => got.length === 1, 'got.length === 1', { everyMs: 25 });
    const closing = r.close();
    await reading;
    await closing;
    expect(got).toEqual(['a', 'b']);
    router = undefined;
  });

  it('forwards traceparent and x-request-id, injects include_usage only for streams, and rewrites only the model', async () => {
    const { client, u } = await setup(1, { model_aliases: { alias: 'm' } });
    u[0].handler = (req, res, body) => (JSON.parse(body).stream ? sseOk(req, res, body) : ok(req, res, body));
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await client.chat.completions.create({ ...MSG, model: 'alias', temperature: 0.3, seed: 7 } as never, {
      headers: { traceparent: tp, 'x-request-id': 'rid-1' },
    });
    const s = await client.chat.completions.create({ ...MSG, stream: true, stream_options: { include_usage: false } } as never);
    for await (const _ of s as any) void _;
    expect(u[0].hits[0].headers.traceparent).toBe(tp);
    expect(u[0].hits[0].headers['x-request-id']).toBe('rid-1');
    expect(u[0].hits[0].body).toEqual({ ...MSG, model: 'm', temperature: 0.3, seed: 7 });
    expect(u[0].hits[1].body.stream_options).toEqual({ include_usage: true });
  });

  it('forwards the client bytes unchanged when nothing needs rewriting (big integers survive)', async () => {
    const { u, r } = await setup(1);
    const raw = '{"model":"m","messages":[{"role":"user","content":"x"}],"x_vendor_id":12345678901234567890,"temperature":1.0}';
    await fetch(`${r.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
    expect(u[0].hits[0].raw).toBe(raw);
  });
});

import OpenAI from 'openai';
import { spawnRole, type SpawnedRole, waitUntil } from '@llmgw/testing';
import { start, type RunningRouter } from '../src/main';
import { silentLog, metricValue } from './helpers';

// The real router (in-process) in front of two real sim-engine processes,
// driven by the official openai client.
describe('router with sim-engines and the openai client', () => {
  let engines: SpawnedRole[] = [];
  let router: RunningRouter;
  let client: OpenAI;

  beforeAll(async () => {
    engines = await Promise.all(
      ['e1', 'e2'].map(() =>
        spawnRole('sim-engine', ['--port', '0', '--model', 'llama', '--decode-tps', '400', '--log-level', 'info', '--max-tokens-default', '8']),
      ),
    );
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 200,
        body_limit_bytes: 64 * 1024,
        models: [{ name: 'llama', aliases: ['llama-latest'] }],
        endpoints: engines.map((e, i) => ({ name: `e${i + 1}`, url: e.url, model: 'llama' })),
      },
    });
    client = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  }, 180_000);

  afterAll(async () => {
    await router?.close();
    await Promise.all(engines.map((e) => e.stop()));
  });

  it('serves a non-streaming chat completion with the llmgw headers', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'llama', messages: [{ role: 'user', content: 'hello' }], max_tokens: 5 })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0].message.content).toEqual(expect.any(String));
    expect(data.usage?.completion_tokens).toBe(5);
    expect(['e1', 'e2']).toContain(response.headers.get('x-llmgw-replica'));
    expect(response.headers.get('x-llmgw-pool')).toBe('default');
    expect(response.headers.get('x-llmgw-served-model')).toBe('llama');
    expect(response.headers.get('x-llmgw-queue-ms')).toBe('0');
    // The built-in chat profile routes by prefix; a prompt shorter than one tree chunk is unknown to it.
    expect(response.headers.get('x-llmgw-cache-decision')).toBe('no_tree');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('resolves an alias and keeps a sane client x-request-id', async () => {
    const { response } = await client.chat.completions
      .create({ model: 'llama-latest', messages: [{ role: 'user', content: 'hello' }], max_tokens: 2 }, { headers: { 'x-request-id': 'my-req-1' } })
      .withResponse();
    expect(response.headers.get('x-request-id')).toBe('my-req-1');
    expect(response.headers.get('x-llmgw-served-model')).toBe('llama');
  });

  it('streams chat and withholds the usage chunk from a client that did not ask', async () => {
    const stream = await client.chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: 'hi' }], max_tokens: 6, stream: true });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.length).toBeGreaterThanOrEqual(6);
    expect(chunks.every((c) => !c.usage)).toBe(true);
    expect(chunks.some((c) => c.choices.length === 0)).toBe(false);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('').length).toBeGreaterThan(0);
  });

  it('streams chat with the usage chunk for a client that asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'llama',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 6,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ completion_tokens: 6 });
  });

  it('counts the tokens it withheld', async () => {
    const before = await metricValue(router.adminUrl, 'llmgw_tokens_total', { model: 'llama', direction: 'completion' });
    const stream = await client.chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, stream: true });
    for await (const _ of stream) void _;
    await waitUntil(
      async () => (await metricValue(router.adminUrl, 'llmgw_tokens_total', { model: 'llama', direction: 'completion' })) === before + 4,
      "(await metricValue(router.adminUrl, 'llmgw_tokens_total', { model: 'llama', direction: ...",
      { everyMs: 25 },
    );
  });

  it('serves completions, streaming and not', async () => {
    const c = await client.completions.create({ model: 'llama', prompt: 'Once upon', max_tokens: 3 });
    expect(c.object).toBe('text_completion');
    expect(c.usage?.completion_tokens).toBe(3);
    const s = await client.completions.create({ model: 'llama', prompt: 'Once upon', max_tokens: 3, stream: true });
    let text = '';
    for await (const ch of s) text += ch.choices[0]?.text ?? '';
    expect(text.length).toBeGreaterThan(0);
  });

  it('serves embeddings', async () => {
    const e = await client.embeddings.create({ model: 'llama', input: ['a', 'b'] });
    expect(e.data).toHaveLength(2);
    expect(e.data[0].embedding.length).toBeGreaterThan(0);
  });

  it('lists models and aliases', async () => {
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(['llama', 'llama-latest']);
  });

  it('retrieves one model, and 404s an unknown one', async () => {
    expect(await client.models.retrieve('llama-latest')).toMatchObject({ id: 'llama-latest', object: 'model' });
    await expect(client.models.retrieve('nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('answers a wrong method with 405 and an unknown path with 404, in OpenAI error JSON', async () => {
    const get = await fetch(`${router.url}/v1/chat/completions`);
    expect(get.status).toBe(405);
    expect(((await get.json()) as any).error.llmgw_code).toBe('LLMGW_ERR_METHOD_NOT_ALLOWED');
    const nope = await fetch(`${router.url}/v2/whatever`, { method: 'POST' });
    expect(nope.status).toBe(404);
    expect(((await nope.json()) as any).error.code).toBe('unknown_url');
  });

  it.each([
    ['an unknown model', { model: 'nope', messages: [{ role: 'user', content: 'x' }] }, OpenAI.NotFoundError, 'model_not_found'],
    ['missing messages', { model: 'llama' }, OpenAI.BadRequestError, 'invalid_value'],
    ['empty messages', { model: 'llama', messages: [] }, OpenAI.BadRequestError, 'invalid_value'],
  ])('rejects %s with the SDK error class', async (_what, body, cls, code) => {
    const err = await client.chat.completions.create(body as never).catch((e) => e);
    expect(err).toBeInstanceOf(cls);
    expect(err.code).toBe(code);
    expect(err.error?.llmgw_code).toMatch(/^LLMGW_ERR_/);
  });

  it('rejects an unknown routing profile and band', async () => {
    const body = { model: 'llama', messages: [{ role: 'user' as const, content: 'x' }] };
    await expect(client.chat.completions.create(body, { headers: { 'x-llmgw-profile': 'nope' } })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(client.chat.completions.create(body, { headers: { 'x-llmgw-band': 'nope' } })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('answers malformed JSON with 400 and an oversized body with 413, in OpenAI error JSON', async () => {
    const bad = await fetch(`${router.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toMatchObject({ type: 'invalid_request_error', llmgw_code: 'LLMGW_ERR_REQUEST_INVALID_JSON' });
    const big = await client.chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: 'x'.repeat(100_000) }] }).catch((e) => e);
    expect(big).toBeInstanceOf(OpenAI.APIError);
    expect(big.status).toBe(413);
    expect(big.code).toBe('request_too_large');
  });

  it('x-llmgw-profile changes the scorer set', async () => {
    const scorers = async () => {
      const text = await (await fetch(`${router.adminUrl}/metrics`)).text();
      return [...new Set([...text.matchAll(/^llmgw_scorer_value\{scorer="([^"]+)"/gm)].map((m) => m[1]))].sort();
    };
    const body = { model: 'llama', messages: [{ role: 'user' as const, content: 'x' }], max_tokens: 1 };
    await client.chat.completions.create(body, { headers: { 'x-llmgw-profile': 'debug' } });
    expect(await scorers()).toEqual(['inflight']);
    await client.chat.completions.create(body, { headers: { 'x-llmgw-profile': 'batch' } });
    expect(await scorers()).toEqual(['inflight', 'kv', 'load', 'prefix', 'queue']);
    await client.chat.completions.create(body);
    expect(await scorers()).toEqual(['inflight', 'kv', 'prefix', 'queue', 'session']);
  });

  it('the built-in chat profile keeps a conversation without a session id on its replica by prefix', async () => {
    const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [
      { role: 'user', content: 'Conversation for the prefix check: summarise the plan. '.repeat(4) },
    ];
    const decisions: Array<string | null> = [];
    const replicas: Array<string | null> = [];
    for (let turn = 0; turn < 4; turn++) {
      const { data, response } = await client.chat.completions.create({ model: 'llama', messages, max_tokens: 4 }).withResponse();
      decisions.push(response.headers.get('x-llmgw-cache-decision'));
      replicas.push(response.headers.get('x-llmgw-replica'));
      messages.push({ role: 'assistant', content: data.choices[0].message.content ?? '' }, { role: 'user', content: `Turn ${turn + 1}: go on. `.repeat(6) });
    }
    // The first turn is new to the tree (no_tree, or a miss when other tests' prompts are in it); then every turn hits.
    expect(['no_tree', 'cache_miss_min_load']).toContain(decisions[0]);
    expect(decisions.slice(1)).toEqual(['cache_hit', 'cache_hit', 'cache_hit']);
    expect(new Set(replicas).size).toBe(1);
    expect(await metricValue(router.adminUrl, 'llmgw_prefix_decisions_total', { model: 'llama', decision: 'cache_hit' })).toBeGreaterThanOrEqual(3);
  });

  it('a client disconnect mid-stream ends the engine request', async () => {
    const ac = new AbortController();
    const stream = await client.chat.completions.create(
      // 8000 tokens at 400 tokens/s: 20 s if the engine were left to finish.
      { model: 'llama', messages: [{ role: 'user', content: 'long' }], max_tokens: 8000, stream: true },
      { signal: ac.signal },
    );
    const it = stream[Symbol.asyncIterator]();
    await it.next();
    await it.next();
    const running = async () => {
      let n = 0;
      for (const u of engines.map((e) => e.url)) {
        const t = await (await fetch(`${u}/metrics`)).text();
        const m = /^vllm:num_requests_running(?:\{[^}]*\})? (\S+)/m.exec(t);
        n += m ? Number(m[1]) : 0;
      }
      return n;
    };
    expect(await running()).toBe(1);
    ac.abort();
    // Half the natural end: only the abort reaching the engine can explain it.
    await waitUntil(async () => (await running()) === 0, '(await running()) === 0', { timeoutMs: 10_000, everyMs: 25 });
    await waitUntil(
      async () => (await metricValue(router.adminUrl, 'llmgw_requests_total', { model: 'llama', pool: 'default', status: '499' })) === 1,
      "(await metricValue(router.adminUrl, 'llmgw_requests_total', { model: 'llama', pool: 'de...",
      { everyMs: 25 },
    );
  });

  it('exposes health, readiness and the contract metric names', async () => {
    expect((await fetch(`${router.adminUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${router.adminUrl}/readyz`)).status).toBe(200);
    await waitUntil(
      async () => (await metricValue(router.adminUrl, 'llmgw_endpoint_metrics_stale', { replica: 'e1' })) === 0,
      "(await metricValue(router.adminUrl, 'llmgw_endpoint_metrics_stale', { replica: 'e1' }))...",
      { everyMs: 25 },
    );
    const text = await (await fetch(`${router.adminUrl}/metrics`)).text();
    for (const name of [
      'llmgw_requests_total',
      'llmgw_request_duration_seconds',
      'llmgw_ttft_seconds',
      'llmgw_tokens_total',
      'llmgw_endpoint_inflight',
      'llmgw_endpoint_score',
      'llmgw_scorer_value',
      'llmgw_candidates_considered',
      'llmgw_candidates_filtered_total',
      'llmgw_endpoint_metrics_stale',
      'llmgw_cache_decision_total',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });
});

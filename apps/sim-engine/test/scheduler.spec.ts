import { waitUntil } from '@llmgw/testing';
import { Engines, metricValue, postJson, scrape, timeToFirstToken } from './helpers';

const engines = new Engines();
afterEach(() => engines.closeAll());

/** A prompt of exactly `tokens` simulated tokens (4 characters each), distinct per `tag`. */
const promptOf = (tokens: number, tag: string): string => (tag + ' ').repeat(tokens * 4).slice(0, tokens * 4);

describe('automatic prefix caching', () => {
  it.each([
    ['chat', '/v1/chat/completions', (p: string) => ({ messages: [{ role: 'user', content: p }] })],
    ['completions', '/v1/completions', (p: string) => ({ prompt: p })],
  ])('%s: a repeated prompt hits the cache, and the cold one takes its prefill time', async (_n, path, body) => {
    // 1600 prompt tokens at 4000 tokens/s: 400 ms cold; warm recomputes < 1 block (4 ms). The exact
    // figures are checked on a manual clock in src/engine.spec.ts; over HTTP on a shared machine only
    // the lower bound holds (the simulation never runs ahead of real time).
    const h = await engines.start({ prefillTps: 4000, decodeTps: 200, models: ['m'] });
    const req = { model: 'm', max_tokens: 2, ...body(promptOf(1600, 'abc')) };
    const cold = await timeToFirstToken(`${h.url}${path}`, req);
    const warm = await timeToFirstToken(`${h.url}${path}`, req);
    const usage = (e: typeof cold) => (e.events.at(-2) as Record<string, any>).usage;
    expect(usage(cold).prompt_tokens_details.cached_tokens).toBe(0);
    expect(usage(warm).prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1584);
    expect(cold.ttftMs).toBeGreaterThan(300);
    const m = await scrape(h.url);
    expect(metricValue(m, 'vllm:prefix_cache_hits_total')).toBe(usage(warm).prompt_tokens_details.cached_tokens);
    expect(metricValue(m, 'vllm:prefix_cache_queries_total')).toBe(usage(cold).prompt_tokens * 2);
  });

  it('a shared prefix is a partial hit; --prefix-cache-blocks 0 disables caching', async () => {
    const on = await engines.start({ prefillTps: 0, decodeTps: 0, models: ['m'] });
    const off = await engines.start({ prefillTps: 0, decodeTps: 0, models: ['m'], prefixCacheBlocks: 0 });
    const base = promptOf(64, 'sys');
    for (const h of [on, off]) {
      await postJson(`${h.url}/v1/completions`, { model: 'm', prompt: base + promptOf(32, 'one'), max_tokens: 1 });
    }
    const second = async (url: string) =>
      (await (await postJson(`${url}/v1/completions`, { model: 'm', prompt: base + promptOf(32, 'two'), max_tokens: 1 })).json()).usage;
    expect((await second(on.url)).prompt_tokens_details.cached_tokens).toBe(64);
    expect((await second(off.url)).prompt_tokens_details.cached_tokens).toBe(0);
  });
});

describe('continuous batching and KV blocks', () => {
  it('queues once blocks run out, with head-of-line blocking, and vllm:num_requests_waiting shows it', async () => {
    // 16 blocks; a 200-token prompt needs 13 blocks (15 as it grows): a second one cannot fit.
    // 40 tokens at 10 tokens/s: the first holds its blocks for about 4 s, long enough for a loaded
    // machine to send the others and see them queued before it finishes.
    const h = await engines.start({ numGpuBlocks: 16, prefillTps: 0, decodeTps: 10, batchContention: 0, models: ['m'] });
    const big = (tag: string) => postJson(`${h.url}/v1/completions`, { model: 'm', prompt: promptOf(200, tag), max_tokens: 40 });
    const first = big('aaa');
    await waitUntil(async () => metricValue(await scrape(h.url), 'vllm:num_requests_running') === 1, 'vllm:num_requests_running to be 1', {
      timeoutMs: 15_000,
    });
    const second = big('bbb');
    // Sent only once the big one is queued: sent together, the small one could reach the engine first.
    await waitUntil(async () => metricValue(await scrape(h.url), 'vllm:num_requests_waiting') === 1, 'vllm:num_requests_waiting to be 1', {
      timeoutMs: 15_000,
    });
    // Needs one block and one is free, but FIFO keeps it behind the big one.
    const small = postJson(`${h.url}/v1/completions`, { model: 'm', prompt: 'tiny', max_tokens: 1 });
    // The scrape that saw both queued is the one checked: a later one may come after the first finished.
    const m = await waitUntil(
      async () => {
        const text = await scrape(h.url);
        return metricValue(text, 'vllm:num_requests_waiting') === 2 && text;
      },
      'vllm:num_requests_waiting to be 2',
      { timeoutMs: 15_000 },
    );
    expect(metricValue(m, 'vllm:num_requests_running')).toBe(1);
    expect(metricValue(m, 'vllm:kv_cache_usage_perc')).toBeGreaterThanOrEqual(13 / 16);
    const results = await Promise.all([first, second, small]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const after = await scrape(h.url);
    expect(metricValue(after, 'vllm:num_requests_waiting')).toBe(0);
    expect(metricValue(after, 'vllm:kv_cache_usage_perc')).toBe(0);
  });

  it('bounds the running batch by --max-num-seqs', async () => {
    // 100 tokens at 50 tokens/s: the first two run for about 2 s, a window a scrape on a loaded machine
    // cannot miss (25 tokens gave 0.5 s).
    const h = await engines.start({ maxNumSeqs: 2, prefillTps: 0, decodeTps: 50, models: ['m'] });
    const reqs = Array.from({ length: 5 }, (_, i) => postJson(`${h.url}/v1/completions`, { model: 'm', prompt: `p${i}`, max_tokens: 100 }));
    await waitUntil(
      async () => {
        const m = await scrape(h.url);
        return metricValue(m, 'vllm:num_requests_running') === 2 && metricValue(m, 'vllm:num_requests_waiting') === 3;
      },
      '2 running and 3 waiting',
      { timeoutMs: 15_000 },
    );
    expect((await Promise.all(reqs)).every((r) => r.status === 200)).toBe(true);
  });

  it('preempts the newest sequence when a running one needs a block, and finishes both', async () => {
    // Both fit (2 blocks each) only if the second is admitted before the first takes its third block at
    // token 16: 320 ms at 50 tokens/s, so that two requests sent together reach it in time on a loaded machine.
    const h = await engines.start({ numGpuBlocks: 4, prefillTps: 0, decodeTps: 50, batchContention: 0, models: ['m'] });
    const go = (tag: string) => postJson(`${h.url}/v1/completions`, { model: 'm', prompt: promptOf(16, tag), max_tokens: 40 }).then((r) => r.json());
    const [a, b] = await Promise.all([go('aaa'), go('bbb')]);
    expect([a.usage.completion_tokens, b.usage.completion_tokens]).toEqual([40, 40]);
    expect(metricValue(await scrape(h.url), 'vllm:num_preemptions_total')).toBeGreaterThanOrEqual(1);
  });

  it('per-token latency grows with the batch (--batch-contention)', async () => {
    // Exact figures on a manual clock: src/engine.spec.ts. Here only lower bounds, which a busy
    // machine cannot break: the simulation never runs ahead of real time.
    const h = await engines.start({ prefillTps: 0, decodeTps: 100, batchContention: 2, models: ['m'] });
    const timed = async (n: number) => {
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: n }, (_, i) => postJson(`${h.url}/v1/completions`, { model: 'm', prompt: `q${i}`, max_tokens: 20 }).then((r) => r.json())),
      );
      return performance.now() - t0;
    };
    expect(await timed(1)).toBeGreaterThan(150); // 19 × 10 ms
    expect(await timed(4)).toBeGreaterThan(1200); // 19 × 10 ms × (1 + 2 × 3) = 1330 ms; without contention 190
  });

  it.each([
    ['streaming', true],
    ['non-streaming', false],
  ])('a client disconnect (%s) lowers vllm:num_requests_running and frees its blocks', async (_n, stream) => {
    // 1000 tokens at 20 tokens/s: 50 s if left to finish, so the bounded waits below can only end by the abort.
    const h = await engines.start({ prefillTps: 0, decodeTps: 20, models: ['m'] });
    const ac = new AbortController();
    const res = postJson(
      `${h.url}/v1/chat/completions`,
      { model: 'm', messages: [{ role: 'user', content: promptOf(100, 'zz') }], max_tokens: 1000, stream },
      { signal: ac.signal },
    );
    res.catch(() => undefined);
    await waitUntil(async () => metricValue(await scrape(h.url), 'vllm:num_requests_running') === 1, 'vllm:num_requests_running to be 1', {
      timeoutMs: 15_000,
    });
    expect(metricValue(await scrape(h.url), 'vllm:kv_cache_usage_perc')).toBeGreaterThan(0);
    ac.abort();
    await waitUntil(async () => metricValue(await scrape(h.url), 'vllm:num_requests_running') === 0, 'vllm:num_requests_running to be 0', {
      timeoutMs: 15_000,
    });
    const m = await scrape(h.url);
    expect(metricValue(m, 'vllm:kv_cache_usage_perc')).toBe(0);
    expect(m).toMatch(/vllm:request_success_total\{finished_reason="abort"[^}]*\} 1\.0/);
  });

  it('a queued request that disconnects leaves the queue', async () => {
    // One slot, held by a request that would run 1000 × 50 ms = 50 s: while it runs, only the
    // abort can take the queued one out of the queue.
    const h = await engines.start({ maxNumSeqs: 1, prefillTps: 0, decodeTps: 20, models: ['m'] });
    const holder = new AbortController();
    postJson(`${h.url}/v1/completions`, { model: 'm', prompt: 'a', max_tokens: 1000 }, { signal: holder.signal }).catch(() => undefined);
    await waitUntil(async () => metricValue(await scrape(h.url), 'vllm:num_requests_running') === 1, 'vllm:num_requests_running to be 1', {
      timeoutMs: 15_000,
    });
    const ac = new AbortController();
    postJson(`${h.url}/v1/completions`, { model: 'm', prompt: 'b', max_tokens: 10 }, { signal: ac.signal }).catch(() => undefined);
    await waitUntil(async () => metricValue(await scrape(h.url), 'vllm:num_requests_waiting') === 1, 'vllm:num_requests_waiting to be 1', {
      timeoutMs: 15_000,
    });
    ac.abort();
    await waitUntil(async () => metricValue(await scrape(h.url), 'vllm:num_requests_waiting') === 0, 'vllm:num_requests_waiting to be 0', {
      timeoutMs: 15_000,
    });
    const m = await scrape(h.url);
    expect(metricValue(m, 'vllm:num_requests_running')).toBe(1); // the holder still runs
    expect(m).toMatch(/vllm:request_success_total\{finished_reason="abort"[^}]*\} 1\.0/);
    holder.abort();
  });
});

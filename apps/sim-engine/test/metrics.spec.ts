import { extractStats, parsePrometheusText, type EngineDialect } from '@llmgw/engine-metrics';
import { Engines, postJson, scrape } from './helpers';
import { waitUntil } from '@llmgw/testing';

const engines = new Engines();
afterEach(() => engines.closeAll());

describe('/metrics in each dialect parses with engine-metrics and honours the engine metric contract', () => {
  it.each<[EngineDialect, string[], boolean]>([
    [
      'vllm',
      [
        'vllm:num_requests_running',
        'vllm:num_requests_waiting',
        'vllm:kv_cache_usage_perc',
        'vllm:prompt_tokens_total',
        'vllm:generation_tokens_total',
        'vllm:cache_config_info',
        'vllm:prefix_cache_queries_total',
        'vllm:prefix_cache_hits_total',
        'vllm:request_success_total',
        'vllm:time_to_first_token_seconds',
        'vllm:inter_token_latency_seconds',
        'vllm:e2e_request_latency_seconds',
      ],
      true,
    ],
    [
      'sglang',
      [
        'sglang:num_running_reqs',
        'sglang:num_queue_reqs',
        'sglang:token_usage',
        'sglang:prompt_tokens_total',
        'sglang:generation_tokens_total',
        'sglang:time_to_first_token_seconds',
        'sglang:cache_config_info',
      ],
      true,
    ],
    ['llamacpp', ['llamacpp:requests_processing', 'llamacpp:requests_deferred', 'llamacpp:prompt_tokens_total', 'llamacpp:tokens_predicted_total'], false],
  ])('%s', async (dialect, families, hasKv) => {
    const h = await engines.start({ models: ['m'], dialect, decodeTps: 0, prefillTps: 0, numGpuBlocks: 100 });
    const r = await postJson(`${h.url}/v1/completions`, { model: 'm', prompt: 'x'.repeat(40 * 4), max_tokens: 5 });
    expect(r.status).toBe(200);
    const text = await scrape(h.url);
    const parsed = parsePrometheusText(text);
    expect(parsed.junk).toEqual([]);
    for (const f of families) expect(parsed.families.has(f)).toBe(true);
    const prefix = dialect + ':';
    expect([...parsed.families.keys()].every((k) => k.startsWith(prefix))).toBe(true);
    const { stats, violations } = extractStats(text, dialect);
    expect(violations).toEqual([]);
    expect(stats).toMatchObject({ running: 0, waiting: 0, promptTokensTotal: 40, generationTokensTotal: 5 });
    expect(stats!.kvUsage !== undefined).toBe(hasKv);
    if (dialect !== 'llamacpp') expect(stats).toMatchObject({ blockSize: 16, numGpuBlocks: 100 });
    if (dialect === 'vllm') {
      expect(parsed.samples.find((s) => s.name === 'vllm:num_requests_running')!.labels).toEqual({ engine: '0', model_name: 'm' });
      expect(stats!.requestsFinishedTotal).toBe(1);
      const count = parsed.samples.find((s) => s.name === 'vllm:time_to_first_token_seconds_count')!;
      expect(count.value).toBe(1);
      expect(count.family).toBe('vllm:time_to_first_token_seconds');
    }
  });

  it('KV usage and queue depth in the scrape follow the engine under load', async () => {
    const h = await engines.start({ models: ['m'], numGpuBlocks: 20, decodeTps: 20, prefillTps: 0, maxNumSeqs: 1 });
    // 40 tokens at 20 tokens/s: the state asserted below holds for about 2 s, long enough for a
    // scrape on a loaded machine to see it (3 tokens gave a 150 ms window a busy CI could miss).
    const reqs = [0, 1].map((i) => postJson(`${h.url}/v1/completions`, { model: 'm', prompt: `${i}`.repeat(160 * 4), max_tokens: 40 }));
    let last: unknown;
    await waitUntil(
      async () => {
        const s = extractStats(await scrape(h.url), 'vllm').stats!;
        last = s;
        return s.running === 1 && s.waiting === 1 && s.kvUsage! >= 11 / 20;
      },
      'one running, one waiting, over half the KV blocks in use',
      { seen: () => last },
    );
    await Promise.all(reqs);
  });
});

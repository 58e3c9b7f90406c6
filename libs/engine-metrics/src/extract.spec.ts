import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveMapping } from './mappings';
import { extractStats } from './extract';
import { parsePrometheusText } from './parser';
import type { EngineDialect, EngineStats } from './types';

const repoRoot = resolve(__dirname, '../../..');
const metricsDir = resolve(repoRoot, 'fixtures/metrics');

interface Expect {
  engine: EngineDialect;
  stats?: Partial<EngineStats>;
  violations: RegExp[];
  junk: number;
}

/** What every fixture must give; a new capture without an entry fails the "every file" check. */
const EXPECTED: Record<string, Expect> = {
  'vllm/vllm-0.7.x-v0_qwen2.5-coder-1.5b_aibrix-runtime-docs.partial.prom': {
    engine: 'vllm',
    stats: {
      running: 0,
      waiting: 0,
      kvUsage: 0,
      promptTokensTotal: 148,
      generationTokensTotal: 955,
      requestsFinishedTotal: 4,
      blockSize: 16,
      numGpuBlocks: 81767,
      lora: { maxLora: 0, running: [], waiting: [] },
    },
    violations: [],
    junk: 0,
  },
  'vllm/vllm-v1_llama-3.1-8b-instruct_vllm-design-docs.excerpt.prom': {
    // The excerpt has no waiting gauge and no KV gauge.
    engine: 'vllm',
    violations: [/Waiting: vllm:num_requests_waiting/, /KVCacheUsage/],
    junk: 0,
  },
  'vllm/vllm-v1_llama-3.2-1b-instruct_vllm-usage-docs.excerpt.prom': {
    engine: 'vllm',
    violations: [/Running/, /Waiting/, /KVCacheUsage/],
    junk: 0,
  },
  'vllm/vllm-0.26.0-cpu_metric-families_inference-perf.txt': {
    // A list of family names and types, not exposition: every data line is junk.
    engine: 'vllm',
    violations: [/Running/, /Waiting/, /KVCacheUsage/],
    junk: 36,
  },
  'sglang/sglang-0.4.x_llama-3.1-8b-instruct_sglang-production-metrics-docs.prom': {
    engine: 'sglang',
    stats: { running: 162, waiting: 2826, kvUsage: 0.28, promptTokensTotal: 8.128902e6, generationTokensTotal: 7.557572e6 },
    violations: [],
    junk: 0,
  },
  'llamacpp/llamacpp-a2df278_requests_processing_deferred_commit-message.excerpt.prom': {
    engine: 'llamacpp',
    stats: { running: 0, waiting: 0 },
    violations: [],
    junk: 0,
  },
};

function allFixtures(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? allFixtures(dir, join(prefix, e.name)) : [join(prefix, e.name)],
  );
}

describe('every capture in fixtures/metrics', () => {
  const files = allFixtures(metricsDir)
    .filter((f) => f !== 'README.md')
    .sort();

  it('has an expectation here', () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(files)('%s parses and maps as expected', (file) => {
    const text = readFileSync(join(metricsDir, file), 'utf8');
    const want = EXPECTED[file];
    const parsed = parsePrometheusText(text);
    expect(parsed.junk).toHaveLength(want.junk);
    const r = extractStats(text, want.engine);
    expect(r.violations).toHaveLength(want.violations.length);
    want.violations.forEach((re, i) => expect(r.violations[i]).toMatch(re));
    if (want.stats) expect(r.stats).toEqual(want.stats);
    else expect(r.stats).toBeUndefined();
  });
});

const m = (name: string, v: number, labels = '') => `${name}${labels ? `{${labels}}` : ''} ${v}`;

describe('extractStats', () => {
  it.each<[string, string, EngineDialect, Partial<EngineStats>]>([
    [
      'old vLLM names (gpu_cache_usage_perc, gpu_prefix_cache_*)',
      [
        m('vllm:num_requests_running', 2),
        m('vllm:num_requests_waiting', 1),
        m('vllm:gpu_cache_usage_perc', 0.5),
        m('vllm:gpu_prefix_cache_queries_total', 100),
        m('vllm:gpu_prefix_cache_hits_total', 40),
      ].join('\n'),
      'vllm',
      { running: 2, waiting: 1, kvUsage: 0.5, prefixCacheQueriesTotal: 100, prefixCacheHitsTotal: 40 },
    ],
    [
      'new names win over old ones when both are present',
      [m('vllm:num_requests_running', 0), m('vllm:num_requests_waiting', 0), m('vllm:gpu_cache_usage_perc', 0.9), m('vllm:kv_cache_usage_perc', 0.1)].join(
        '\n',
      ),
      'vllm',
      { kvUsage: 0.1 },
    ],
    [
      'several engines and model names: counts summed, KV averaged',
      [
        m('vllm:num_requests_running', 2, 'engine="0",model_name="a"'),
        m('vllm:num_requests_running', 3, 'engine="1",model_name="a"'),
        m('vllm:num_requests_waiting', 1, 'engine="0",model_name="a"'),
        m('vllm:num_requests_waiting', 4, 'engine="0",model_name="b"'),
        m('vllm:kv_cache_usage_perc', 0.2, 'engine="0"'),
        m('vllm:kv_cache_usage_perc', 0.6, 'engine="1"'),
        m('vllm:request_success_total', 5, 'finished_reason="stop"'),
        m('vllm:request_success_total', 2, 'finished_reason="length"'),
      ].join('\n'),
      'vllm',
      { running: 5, waiting: 5, kvUsage: 0.4, requestsFinishedTotal: 7 },
    ],
    [
      'lora_requests_info: the series with the largest value',
      [
        m('vllm:num_requests_running', 0),
        m('vllm:num_requests_waiting', 0),
        m('vllm:kv_cache_usage_perc', 0),
        m('vllm:lora_requests_info', 100, 'max_lora="4",running_lora_adapters="old",waiting_lora_adapters=""'),
        m('vllm:lora_requests_info', 200, 'max_lora="4",running_lora_adapters="a,b",waiting_lora_adapters="c"'),
      ].join('\n'),
      'vllm',
      { lora: { maxLora: 4, running: ['a', 'b'], waiting: ['c'] } },
    ],
    [
      'sglang with the newer label set',
      [
        m('sglang:num_running_reqs', 3, 'engine_type="unified",model_name="x",pp_rank="0",tp_rank="0"'),
        m('sglang:num_queue_reqs', 7, 'engine_type="unified",model_name="x",pp_rank="0",tp_rank="0"'),
        m('sglang:token_usage', 0.25, 'engine_type="unified",model_name="x",pp_rank="0",tp_rank="0"'),
        m('sglang:cache_config_info', 1, 'page_size="1",num_pages="4096"'),
      ].join('\n'),
      'sglang',
      { running: 3, waiting: 7, kvUsage: 0.25, blockSize: 1, numGpuBlocks: 4096 },
    ],
  ])('%s', (_n, text, engine, want) => {
    const r = extractStats(text, engine);
    expect(r.violations).toEqual([]);
    expect(r.stats).toMatchObject(want);
  });

  it('a KV ratio out of range is a violation and is clamped', () => {
    const r = extractStats([m('vllm:num_requests_running', 0), m('vllm:num_requests_waiting', 0), m('vllm:kv_cache_usage_perc', 42)].join('\n'));
    expect(r.violations).toEqual([expect.stringMatching(/out of range/)]);
    expect(r.stats!.kvUsage).toBe(1);
  });

  it('llama.cpp has no KV metric: no violation, no kvUsage', () => {
    const r = extractStats(
      [m('llamacpp:requests_processing', 1), m('llamacpp:requests_deferred', 2), m('llamacpp:tokens_predicted_total', 9)].join('\n'),
      'llamacpp',
    );
    expect(r).toEqual({ stats: { running: 1, waiting: 2, generationTokensTotal: 9 }, violations: [], junk: 0 });
  });

  it.each([
    [
      'a renamed metric (string override)',
      { running: 'custom:running' },
      [m('custom:running', 4), m('vllm:num_requests_waiting', 1), m('vllm:kv_cache_usage_perc', 0)],
      { running: 4 },
      [],
    ],
    [
      'naming a KV metric llama.cpp lacks makes it a violation',
      { kvUsage: 'llamacpp:kv_cache_usage_ratio' },
      [m('llamacpp:requests_processing', 1), m('llamacpp:requests_deferred', 0)],
      { running: 1 },
      [/KVCacheUsage/],
    ],
    ['null clears KV for an engine without it', { kvUsage: null }, [m('vllm:num_requests_running', 1), m('vllm:num_requests_waiting', 0)], { running: 1 }, []],
  ] as const)('overrides: %s', (_n, override, lines, want, violations) => {
    const engine: EngineDialect = lines[0].startsWith('llamacpp') ? 'llamacpp' : 'vllm';
    const r = extractStats(lines.join('\n'), engine, override);
    expect(r.stats).toMatchObject(want);
    expect(r.violations).toHaveLength(violations.length);
    violations.forEach((re, i) => expect(r.violations[i]).toMatch(re));
  });

  it('override merging leaves the defaults untouched', () => {
    resolveMapping('vllm', { running: ['x'] });
    expect(resolveMapping('vllm').running).toEqual(['vllm:num_requests_running']);
  });

  it('never throws on junk and reports it', () => {
    const r = extractStats('garbage\n\x00\x01{{{\nvllm:num_requests_running 1\nvllm:num_requests_waiting 2\nvllm:kv_cache_usage_perc 0.5');
    expect(r.junk).toBe(2);
    expect(r.stats).toMatchObject({ running: 1, waiting: 2 });
  });
});

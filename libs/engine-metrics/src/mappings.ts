import type { EngineDialect } from './types';

/**
 * Which metric names carry each contract field for one engine (docs/router.md, "Scraping").
 * Every field lists alternatives in order of preference: the first name that
 * has at least one series in the scrape is used, so one mapping reads both a
 * current and an older release (`kv_cache_usage_perc` / `gpu_cache_usage_perc`).
 * An empty list means "this engine has no such metric".
 */
export interface MetricMapping {
  /** Mandatory. */
  running: string[];
  /** Mandatory. */
  waiting: string[];
  /** Required when non-empty: a mapping that names KV usage and does not find it is a violation. */
  kvUsage: string[];
  promptTokensTotal: string[];
  generationTokensTotal: string[];
  prefixCacheQueriesTotal: string[];
  prefixCacheHitsTotal: string[];
  requestsFinishedTotal: string[];
  /** An info gauge whose labels carry the block size and the block count. */
  cacheConfigInfo: Array<{ metric: string; blockSizeLabel: string; numBlocksLabel: string }>;
  /** vLLM's lora_requests_info: labels max_lora, running_lora_adapters, waiting_lora_adapters. */
  loraInfo: string[];
}

/** A partial mapping from configuration; a bare string is a one-name list, null clears the field. */
export type MappingOverride = {
  [K in keyof MetricMapping]?: MetricMapping[K] extends string[] ? string | string[] | null : MetricMapping[K] | null;
};

export const DEFAULT_MAPPINGS: Readonly<Record<EngineDialect, Readonly<MetricMapping>>> = {
  vllm: {
    running: ['vllm:num_requests_running'],
    waiting: ['vllm:num_requests_waiting'],
    kvUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
    promptTokensTotal: ['vllm:prompt_tokens_total'],
    generationTokensTotal: ['vllm:generation_tokens_total'],
    prefixCacheQueriesTotal: ['vllm:prefix_cache_queries_total', 'vllm:gpu_prefix_cache_queries_total'],
    prefixCacheHitsTotal: ['vllm:prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits_total'],
    requestsFinishedTotal: ['vllm:request_success_total'],
    cacheConfigInfo: [{ metric: 'vllm:cache_config_info', blockSizeLabel: 'block_size', numBlocksLabel: 'num_gpu_blocks' }],
    loraInfo: ['vllm:lora_requests_info'],
  },
  sglang: {
    running: ['sglang:num_running_reqs'],
    waiting: ['sglang:num_queue_reqs'],
    kvUsage: ['sglang:token_usage'],
    promptTokensTotal: ['sglang:prompt_tokens_total'],
    generationTokensTotal: ['sglang:generation_tokens_total'],
    prefixCacheQueriesTotal: [],
    prefixCacheHitsTotal: [],
    requestsFinishedTotal: ['sglang:num_requests_total'],
    cacheConfigInfo: [{ metric: 'sglang:cache_config_info', blockSizeLabel: 'page_size', numBlocksLabel: 'num_pages' }],
    loraInfo: [],
  },
  llamacpp: {
    running: ['llamacpp:requests_processing'],
    waiting: ['llamacpp:requests_deferred'],
    // b10991 publishes no KV ratio : saturation falls back to queue depth.
    kvUsage: [],
    promptTokensTotal: ['llamacpp:prompt_tokens_total'],
    generationTokensTotal: ['llamacpp:tokens_predicted_total'],
    prefixCacheQueriesTotal: [],
    prefixCacheHitsTotal: [],
    requestsFinishedTotal: [],
    cacheConfigInfo: [],
    loraInfo: [],
  },
};

/** The default mapping for `engine` with `override` merged over it (field by field). */
export function resolveMapping(engine: EngineDialect, override?: MappingOverride): MetricMapping {
  const base = DEFAULT_MAPPINGS[engine] ?? DEFAULT_MAPPINGS.vllm;
  const out: MetricMapping = {
    ...base,
    cacheConfigInfo: [...base.cacheConfigInfo],
  };
  if (!override) return out;
  for (const [k, v] of Object.entries(override) as Array<[keyof MetricMapping, unknown]>) {
    if (v === undefined) continue;
    if (k === 'cacheConfigInfo') {
      out.cacheConfigInfo = v === null ? [] : [...(v as MetricMapping['cacheConfigInfo'])];
      continue;
    }
    (out as unknown as Record<string, string[]>)[k] = v === null ? [] : typeof v === 'string' ? [v] : [...(v as string[])];
  }
  return out;
}

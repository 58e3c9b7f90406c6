/**
 * The engine metric contract (docs/router.md, "Scraping"), normalised: what llmgw needs to know
 * about one engine, whatever the engine calls it. Produced by the per-engine
 * mappings in this lib from a Prometheus text scrape; consumed by the router's
 * scorers and by admission's saturation detector.
 */
export type { EngineDialect } from '@llmgw/contracts';

export interface EngineStats {
  /** Requests queued inside the engine (mandatory in the contract). */
  waiting: number;
  /** Requests in the engine's running batch (mandatory in the contract). */
  running: number;
  /** KV cache occupancy 0..1; undefined when the engine publishes no such metric. */
  kvUsage?: number;
  /** Cumulative prompt tokens processed (counter). */
  promptTokensTotal?: number;
  /** Cumulative generated tokens (counter). */
  generationTokensTotal?: number;
  /** Cumulative prefix-cache queries and hits, in tokens (counters). */
  prefixCacheQueriesTotal?: number;
  prefixCacheHitsTotal?: number;
  /** Cumulative finished requests (counter); the router derives a drain rate from it. */
  requestsFinishedTotal?: number;
  /** KV block size in tokens, and number of GPU blocks (from cache_config_info). */
  blockSize?: number;
  numGpuBlocks?: number;
  /** LoRA state, where published. */
  lora?: { maxLora: number; running: string[]; waiting: string[] };
}

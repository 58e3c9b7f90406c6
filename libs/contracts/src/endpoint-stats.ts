import { z } from 'zod';

/**
 * Engine stats of one endpoint (replica), as inventory publishes them from
 * the agents' scrapes so routers and admission can read GPU-side figures
 * without scraping the engine themselves (docs/inventory.md).
 *
 * Key: `<prefix>endpoint-stats:<replica_id>` (STRING, JSON of this schema,
 * expiring `engine_stats.ttl` after the write: a missing key means no fresh
 * figures). Channel `<prefix>endpoint-stats:changed` carries the replica id
 * after every write batch's entries, comma-separated.
 */
export const ENDPOINT_STATS_VERSION = 1;

export const endpointStatsSchema = z.object({
  v: z.literal(ENDPOINT_STATS_VERSION),
  replicaId: z.string().min(1),
  shardId: z.string(),
  nodeId: z.string(),
  endpoint: z.string(),
  engine: z.string(),
  /** Agent clock, unix millis, when the scrape completed. */
  scrapedAtMs: z.number(),
  /** Inventory clock, unix millis, when it was published. */
  publishedAtMs: z.number(),
  waiting: z.number().int().min(0),
  running: z.number().int().min(0),
  kvUsage: z.number().min(0).max(1).optional(),
  promptTokensTotal: z.number().optional(),
  generationTokensTotal: z.number().optional(),
  prefixCacheQueriesTotal: z.number().optional(),
  prefixCacheHitsTotal: z.number().optional(),
  requestsFinishedTotal: z.number().optional(),
  ttftP50Ms: z.number().optional(),
  tpotP50Ms: z.number().optional(),
  /** Non-empty when the agent's scrape failed; the figures are then the last good ones. */
  error: z.string().default(''),
});

export type EndpointStatsRecord = z.output<typeof endpointStatsSchema>;

export function endpointStatsKeys(prefix: string) {
  return { key: (replicaId: string) => `${prefix}endpoint-stats:${replicaId}`, channel: `${prefix}endpoint-stats:changed` };
}

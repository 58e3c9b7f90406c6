import type { AdmissionController, ReplicaStats } from './controller';

/** The endpoint facts the pool feed needs (a subset of @llmgw/endpoints' EndpointInfo). */
export interface PoolEndpoint {
  id: string;
  pool: string;
  model: string;
  draining?: boolean;
  /** The engine's batch slots as started (`--max-num-seqs`), when the endpoint declares it. */
  maxNumSeqs?: number;
  /** Admission's target waiting for this replica, when its endpoint declares one (docs/capacity.md). */
  targetWaiting?: number;
}

/** The scraped numbers of one endpoint (a subset of EngineStats). */
export interface PoolEndpointStats {
  waiting: number;
  running: number;
  kvUsage?: number;
  /** Unix ms of the scrape these numbers come from (the slot learner counts each scrape once). */
  sampledAt?: number;
}

/**
 * A scraper's state of one endpoint as `feedPools` reads it: the last good
 * scrape's numbers with the time they were scraped (structural, so this lib
 * needs no dependency on the scraper's).
 */
export function scrapedForPools(state: { stats?: PoolEndpointStats; lastSuccessMs?: number } | undefined): PoolEndpointStats | undefined {
  const s = state?.stats;
  if (!s) return undefined;
  return {
    waiting: s.waiting,
    running: s.running,
    ...(s.kvUsage !== undefined ? { kvUsage: s.kvUsage } : {}),
    ...(state.lastSuccessMs !== undefined ? { sampledAt: state.lastSuccessMs } : {}),
  };
}

/**
 * Feeds a controller from an endpoint list and per-endpoint scraped stats:
 * replicas grouped by (model, pool), draining ones left out (they take no new
 * requests), endpoints not scraped yet counted as idle. Returns the keys fed,
 * so the caller can pass them back as `previous` to drop vanished pools.
 */
export function feedPools(
  ctl: AdmissionController,
  endpoints: readonly PoolEndpoint[],
  stats: (id: string) => PoolEndpointStats | undefined,
  previous: ReadonlySet<string> = new Set(),
): Set<string> {
  const groups = new Map<string, { pool: string; model: string; replicas: ReplicaStats[] }>();
  for (const e of endpoints) {
    if (e.draining) continue;
    const k = `${e.model}\u0000${e.pool}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { pool: e.pool, model: e.model, replicas: [] }));
    const s = stats(e.id);
    g.replicas.push({
      id: e.id,
      waiting: s?.waiting ?? 0,
      running: s?.running ?? 0,
      ...(s?.kvUsage !== undefined ? { kvUsage: s.kvUsage } : {}),
      ...(s?.sampledAt !== undefined ? { sampledAt: s.sampledAt } : {}),
      ...(e.maxNumSeqs !== undefined ? { declaredCapacity: e.maxNumSeqs } : {}),
      ...(e.targetWaiting !== undefined ? { targetWaiting: e.targetWaiting } : {}),
    });
  }
  for (const k of previous) {
    if (groups.has(k)) continue;
    const [model, pool] = k.split('\u0000');
    ctl.removePool(pool, model);
  }
  for (const g of groups.values()) ctl.updatePool(g.pool, g.replicas, g.model);
  return new Set(groups.keys());
}

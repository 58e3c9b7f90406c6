import type { ReplicaLoad, SaturationThresholds } from './types';

/**
 * Saturation of one replica (plan §7.2.1): max(queued ÷ target, kv ÷ ceiling).
 *
 * The scraped `waiting` lags by up to a scrape interval, so the queue is also
 * estimated from what is known now: `inflight − batchCapacity` (requests
 * dispatched beyond what the engine can run at once must be queued there).
 * `pendingLeases` are grants not yet dispatched; they count as inflight so a
 * simultaneous burst cannot pass the check en masse.
 */
export function replicaSaturation(load: ReplicaLoad, t: SaturationThresholds, pendingLeases = 0): number {
  const capacity = Math.max(1, load.batchCapacity);
  const queuedNow = Math.max(0, load.inflight + pendingLeases - capacity);
  const queued = Math.max(load.waiting, queuedNow);
  const q = queued / Math.max(1e-9, t.targetWaitingPerReplica);
  const kv = load.kvUsage === undefined ? 0 : load.kvUsage / Math.max(1e-9, t.kvCeiling);
  return Math.max(q, kv);
}

/**
 * Saturation of a pool: the mean over its replicas, with the pool's pending
 * leases spread evenly across them. A pool with no replicas is fully
 * saturated (Infinity), so nothing is admitted to it.
 */
export function poolSaturation(replicas: readonly ReplicaLoad[], t: SaturationThresholds, pendingLeases = 0): number {
  if (replicas.length === 0) return Number.POSITIVE_INFINITY;
  const share = pendingLeases / replicas.length;
  let sum = 0;
  for (const r of replicas) sum += replicaSaturation(r, t, share);
  return sum / replicas.length;
}

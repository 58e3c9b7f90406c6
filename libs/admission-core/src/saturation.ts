import type { ReplicaLoad, SaturationThresholds } from './types';

/**
 * The saturation of a pool, component by component (docs/admission.md, "The
 * saturation detector"). Every component is 0 when idle and 1 at its healthy
 * limit; `total` is the largest.
 */
export interface SaturationParts {
  /**
   * Batch slots in use ÷ batch slots, over the replicas whose capacity is
   * confirmed (the engine has shown a lasting queue at that batch size); 0
   * while none is. At most 1: requests beyond the slots are `queue`.
   */
  slots: number;
  /** Mean over replicas of queued ÷ target_waiting_per_replica (the replica's own when its endpoint declares one). */
  queue: number;
  /** Mean over replicas of KV occupancy ÷ kv_ceiling (0 for engines without it). */
  kv: number;
  /** max(slots, queue, kv); Infinity for a pool with no replicas. */
  total: number;
  /** Slots in use on the confirmed replicas (each replica counts at most its capacity). */
  used: number;
  /** Slots of the confirmed replicas, summed. */
  capacity: number;
  /** Replicas with a confirmed capacity. */
  confirmed: number;
  replicas: number;
}

const EMPTY_POOL: SaturationParts = Object.freeze({
  slots: 0,
  queue: 0,
  kv: 0,
  total: Number.POSITIVE_INFINITY,
  used: 0,
  capacity: 0,
  confirmed: 0,
  replicas: 0,
});

/** Requests a replica holds (running or queued): the scrape, or what is known now when larger. */
function occupancy(load: ReplicaLoad, pendingLeases: number): number {
  return Math.max(load.running + load.waiting, load.inflight + pendingLeases);
}

function parts1(load: ReplicaLoad, t: SaturationThresholds, pendingLeases: number) {
  const capacity = Math.max(1, load.batchCapacity);
  const occ = occupancy(load, pendingLeases);
  // The scraped queue lags by a scrape; requests dispatched beyond what the engine runs at once must be queued there.
  const queued = Math.max(load.waiting, load.inflight + pendingLeases - capacity, 0);
  return {
    queue: queued / Math.max(1e-9, load.targetWaiting ?? t.targetWaitingPerReplica),
    kv: load.kvUsage === undefined ? 0 : load.kvUsage / Math.max(1e-9, t.kvCeiling),
    used: load.capacityConfirmed ? Math.min(occ, capacity) : 0,
    capacity: load.capacityConfirmed ? capacity : 0,
  };
}

/**
 * Saturation of one replica: max(slots, queued ÷ target, kv ÷ ceiling), the
 * slot component only once its capacity is confirmed. `pendingLeases` are
 * grants not yet visible in a scrape; they count as inflight so a
 * simultaneous burst cannot pass the check en masse.
 */
export function replicaSaturation(load: ReplicaLoad, t: SaturationThresholds, pendingLeases = 0): number {
  const p = parts1(load, t, pendingLeases);
  return Math.max(p.capacity > 0 ? p.used / p.capacity : 0, p.queue, p.kv);
}

/**
 * The components of a pool's saturation, with the pool's pending leases
 * spread evenly across its replicas. `slots` is pooled (slots in use ÷ slots,
 * over confirmed replicas); `queue` and `kv` are means over all replicas.
 */
export function poolSaturationParts(replicas: readonly ReplicaLoad[], t: SaturationThresholds, pendingLeases = 0): SaturationParts {
  if (replicas.length === 0) return EMPTY_POOL;
  const share = pendingLeases / replicas.length;
  let queue = 0;
  let kv = 0;
  let used = 0;
  let capacity = 0;
  let confirmed = 0;
  for (const r of replicas) {
    const p = parts1(r, t, share);
    queue += p.queue;
    kv += p.kv;
    used += p.used;
    capacity += p.capacity;
    if (r.capacityConfirmed) confirmed++;
  }
  queue /= replicas.length;
  kv /= replicas.length;
  const slots = capacity > 0 ? used / capacity : 0;
  return { slots, queue, kv, total: Math.max(slots, queue, kv), used, capacity, confirmed, replicas: replicas.length };
}

/**
 * Saturation of a pool: max(slots, mean queue, mean kv), counting
 * `pendingLeases`. A pool with no replicas is fully saturated (Infinity), so
 * nothing is admitted to it.
 */
export function poolSaturation(replicas: readonly ReplicaLoad[], t: SaturationThresholds, pendingLeases = 0): number {
  return poolSaturationParts(replicas, t, pendingLeases).total;
}

/** How a band stands towards a pool, for `bandVerdict`. */
export interface BandStanding {
  /** The band's saturation_ceiling. */
  ceiling: number;
  /** The highest configured band: it may fill every slot and queue at the engine up to its ceiling. */
  top: boolean;
  /** A higher band has a lease outstanding in this pool or a request queued. */
  higherDemand: boolean;
  /** Slots kept free per confirmed replica for higher bands when a lower band borrows (slot_headroom_per_replica). */
  headroomPerReplica: number;
}

/** Which rule decided: the band's share, borrowing idle slots, the top band's freedom, or a hold. */
export type VerdictRule = 'share' | 'borrow' | 'top' | 'held:queue' | 'held:kv' | 'held:slots' | 'held:no-replicas';

export interface BandVerdict {
  admit: boolean;
  rule: VerdictRule;
  /** Slots the band may have in use after this admission (Infinity for the top band). */
  slotLimit: number;
}

/**
 * Slots a lower band may fill by borrowing: all but the headroom, which is at
 * most capacity − one slot per replica (a single-slot engine is never
 * reserved whole).
 */
export function borrowLimit(after: SaturationParts, headroomPerReplica: number): number {
  const headroom = Math.min(headroomPerReplica * after.confirmed, after.capacity - after.confirmed);
  return after.capacity - Math.max(0, headroom);
}

/**
 * May a request of this band be admitted to a pool whose saturation,
 * *counting this request*, is `after`? The rule (docs/admission.md):
 *
 * - queue ≤ ceiling and kv ≤ ceiling, always;
 * - the top band has no slot limit (it takes every slot, then queues at the
 *   engine up to its ceiling × target);
 * - a lower band may hold its share, slots ≤ ceiling; beyond it, only while
 *   no higher band has demand in the pool, it may borrow idle slots up to
 *   capacity − headroom, so a higher-band arrival always finds a free slot
 *   and the engine queue stays empty below the top band.
 */
export function bandVerdict(after: SaturationParts, b: BandStanding): BandVerdict {
  const limitShare = b.ceiling * after.capacity;
  if (after.replicas === 0) return { admit: false, rule: 'held:no-replicas', slotLimit: 0 };
  if (after.queue > b.ceiling) return { admit: false, rule: 'held:queue', slotLimit: b.top ? Infinity : limitShare };
  if (after.kv > b.ceiling) return { admit: false, rule: 'held:kv', slotLimit: b.top ? Infinity : limitShare };
  if (b.top || b.ceiling >= 1) return { admit: true, rule: 'top', slotLimit: Infinity };
  if (after.slots <= b.ceiling) return { admit: true, rule: 'share', slotLimit: limitShare };
  if (!b.higherDemand) {
    const limit = borrowLimit(after, b.headroomPerReplica);
    if (after.used <= limit) return { admit: true, rule: 'borrow', slotLimit: limit };
    return { admit: false, rule: 'held:slots', slotLimit: limit };
  }
  return { admit: false, rule: 'held:slots', slotLimit: limitShare };
}

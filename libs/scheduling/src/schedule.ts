import { poolSaturation, type ReplicaLoad, type SaturationThresholds } from '@llmgw/admission-core';
import { DEFAULT_KV_CEILING, DEFAULT_TARGET_WAITING_PER_REPLICA } from '@llmgw/contracts';
import type { CacheDecision, NoEndpointReason } from './decisions';
import type { EndpointView, PickResult, PrefixOutcome, RoutingProfile, SchedRequest, ScoredEndpoint } from './types';

/** Decides whether a pool is saturated (stage 1 spills past it). */
export type PoolSaturatedFn = (pool: string, candidates: readonly EndpointView[]) => boolean;

export interface ScheduleOptions {
  /** Uniform in [0,1); injected so tests are deterministic. */
  random: () => number;
  /** Endpoints already tried by this request (retries): never picked again. */
  exclude?: ReadonlySet<string>;
  /** Restrict to this pool (admission already granted it); no spillover then. */
  pool?: string;
  /**
   * Stage-1 saturation test. Default: `saturatedByLoad(DEFAULT_SATURATION)`,
   * the saturation detector (docs/admission.md#the-saturation-detector-with-a-slot-component) over the pool's usable candidates. A router running
   * admission passes its own detector so both agree.
   */
  poolSaturated?: PoolSaturatedFn;
}

/** The default thresholds (@llmgw/contracts): target_waiting_per_replica 4, kv_ceiling 0.90. */
export const DEFAULT_SATURATION: SaturationThresholds = Object.freeze({
  targetWaitingPerReplica: DEFAULT_TARGET_WAITING_PER_REPLICA,
  kvCeiling: DEFAULT_KV_CEILING,
});

/** What the saturation detector reads from an endpoint view. Stale or missing stats count as idle engines; inflight still counts. */
export function replicaLoadOf(ep: EndpointView): ReplicaLoad {
  const running = ep.stats?.running ?? 0;
  return {
    waiting: ep.stats?.waiting ?? 0,
    running,
    kvUsage: ep.stats?.kvUsage,
    inflight: ep.inflight,
    batchCapacity: ep.batchCapacity ?? Math.max(1, running),
  };
}

/** A PoolSaturatedFn from `poolSaturation` (admission-core): saturated when ≥ `ceiling`. */
export function saturatedByLoad(thresholds: SaturationThresholds, ceiling = 1): PoolSaturatedFn {
  return (_pool, eps) => poolSaturation(eps.map(replicaLoadOf), thresholds) >= ceiling;
}

const defaultSaturated = saturatedByLoad(DEFAULT_SATURATION);

/**
 * One scheduling decision (docs/scheduling.md), never throws for an expected outcome.
 *
 * 0. `exclude`, then `opts.pool`, then the profile's filters remove candidates
 *    (counted per name in `filtered`: `exclude`, `pool`, each filter's name).
 * 1. Pool stage: candidates are grouped by `poolPriority`; the highest tier is
 *    used unless every pool in it is saturated, in which case the next tier is
 *    tried; when all are saturated the highest is used (admission, not
 *    scheduling, holds requests back). Candidates of tiers not chosen are
 *    counted as `filtered['pool-stage']`. Skipped when `opts.pool` is given.
 * 2. Replica stage: every scorer scores the tier; each value is clamped to
 *    [0,1] (NaN/missing → 0), recorded in `perScorer`, weighted and summed;
 *    the profile's picker chooses.
 */
export function schedule(profile: RoutingProfile, req: SchedRequest, endpoints: readonly EndpointView[], opts: ScheduleOptions): PickResult {
  const considered = endpoints.length;
  const filtered: Record<string, number> = {};
  const fail = (reason: NoEndpointReason): PickResult => ({ kind: 'no_endpoint', reason, considered, filtered });
  if (considered === 0) return fail('no_candidates');

  let cands: readonly EndpointView[] = endpoints;
  if (opts.exclude !== undefined && opts.exclude.size > 0) {
    const ex = opts.exclude;
    cands = narrow(cands, (e) => !ex.has(e.id), 'exclude', filtered);
  }
  if (opts.pool !== undefined) {
    const pool = opts.pool;
    cands = narrow(cands, (e) => e.pool === pool, 'pool', filtered);
  }
  for (const f of profile.filters) {
    if (cands.length === 0) break;
    const before = cands.length;
    cands = f.filter(req, cands);
    filtered[f.name] = (filtered[f.name] ?? 0) + (before - cands.length);
  }
  if (cands.length === 0) return fail(opts.pool !== undefined ? 'pool_unavailable' : 'all_filtered');

  if (opts.pool === undefined) cands = poolStage(cands, opts.poolSaturated ?? defaultSaturated, filtered);

  const scored: ScoredEndpoint[] = cands.map((endpoint) => ({ endpoint, total: 0, perScorer: {} }));
  let decision: string | undefined;
  let target: string | undefined;
  let prefix: PrefixOutcome | undefined;
  let prefixTarget: string | undefined;
  for (const { scorer, weight } of profile.scorers) {
    let scores: Map<string, number>;
    if (scorer.scoreDetailed) {
      const d = scorer.scoreDetailed(req, cands);
      scores = d.scores;
      // `no_session` says only that tier 0 had no key: a later cache-aware scorer's decision (prefix) says more.
      if ((decision === undefined || decision === 'no_session') && d.cacheDecision !== undefined) {
        decision = d.cacheDecision;
        target = d.target;
      }
      if (prefix === undefined && d.prefix !== undefined) {
        prefix = d.prefix;
        prefixTarget = d.target;
      }
    } else {
      scores = scorer.score(req, cands);
    }
    for (const s of scored) {
      const v = clamp01(scores.get(s.endpoint.id));
      s.perScorer[scorer.name] = v;
      s.total += weight * v;
    }
  }

  const picked = profile.picker.pick(req, scored, opts.random);
  if (picked === undefined) return fail('picker_empty');

  for (const { scorer } of profile.scorers) scorer.picked?.(req, picked.endpoint);

  let cacheDecision: CacheDecision | string = decision ?? 'none';
  if ((decision === 'session_hit' || decision === 'session_overflow') && target !== picked.endpoint.id) {
    cacheDecision = 'session_override';
  }
  if (prefix?.decision === 'cache_hit' && prefixTarget !== picked.endpoint.id) {
    // Other scorers (or a sampling picker) outweighed the best match.
    prefix = { ...prefix, decision: 'load_balance_override' };
    if (cacheDecision === 'cache_hit') cacheDecision = 'load_balance_override';
  }
  return {
    kind: 'picked',
    endpoint: picked.endpoint,
    pool: picked.endpoint.pool,
    scored,
    considered,
    filtered,
    cacheDecision,
    ...(prefix ? { prefix } : {}),
  };
}

function narrow(eps: readonly EndpointView[], keep: (e: EndpointView) => boolean, name: string, filtered: Record<string, number>): EndpointView[] {
  const out = eps.filter(keep);
  filtered[name] = eps.length - out.length;
  return out;
}

function clamp01(v: number | undefined): number {
  if (v === undefined || Number.isNaN(v)) return 0;
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

function poolStage(cands: readonly EndpointView[], saturated: PoolSaturatedFn, filtered: Record<string, number>): readonly EndpointView[] {
  let single = true;
  for (const e of cands) {
    if (e.poolPriority !== cands[0].poolPriority) {
      single = false;
      break;
    }
  }
  if (single) return cands;

  const tiers = [...new Set(cands.map((e) => e.poolPriority))].sort((a, b) => b - a);
  let chosen: EndpointView[] | undefined;
  for (const prio of tiers) {
    const tier = cands.filter((e) => e.poolPriority === prio);
    const byPool = new Map<string, EndpointView[]>();
    for (const e of tier) {
      const list = byPool.get(e.pool);
      if (list) list.push(e);
      else byPool.set(e.pool, [e]);
    }
    let allSaturated = true;
    for (const [pool, eps] of byPool) {
      if (!saturated(pool, eps)) {
        allSaturated = false;
        break;
      }
    }
    if (!allSaturated) {
      chosen = tier;
      break;
    }
  }
  chosen ??= cands.filter((e) => e.poolPriority === tiers[0]);
  filtered['pool-stage'] = cands.length - chosen.length;
  return chosen;
}

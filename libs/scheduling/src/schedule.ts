import { poolSaturation, type ReplicaLoad, type SaturationThresholds } from '@llmgw/admission-core';
import { DEFAULT_KV_CEILING, DEFAULT_TARGET_WAITING_PER_REPLICA } from '@llmgw/contracts';
import type { CacheDecision, NoEndpointReason } from './decisions';
import type { EndpointView, PickResult, PrefixOutcome, RoutingProfile, SchedRequest, ScoreDetail, ScoredEndpoint, ScoreInfo } from './types';

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
  if (considered === 0) return noEndpoint('no_candidates', considered, filtered);

  let cands: readonly EndpointView[] = endpoints;
  if (opts.exclude !== undefined && opts.exclude.size > 0) cands = withoutExcluded(cands, opts.exclude, filtered);
  if (opts.pool !== undefined) cands = inPool(cands, opts.pool, filtered);
  for (const f of profile.filters) {
    if (cands.length === 0) break;
    const before = cands.length;
    cands = f.filter(req, cands);
    filtered[f.name] = (filtered[f.name] ?? 0) + (before - cands.length);
  }
  if (cands.length === 0) return noEndpoint(opts.pool !== undefined ? 'pool_unavailable' : 'all_filtered', considered, filtered);

  if (opts.pool === undefined) cands = poolStage(cands, opts.poolSaturated ?? defaultSaturated, filtered);

  const n = cands.length;
  const scored: ScoredEndpoint[] = new Array<ScoredEndpoint>(n);
  for (let i = 0; i < n; i++) scored[i] = { endpoint: cands[i], total: 0, perScorer: {} };
  if (scratch.length < n) scratch = new Float64Array(2 * n);
  let decision: string | undefined;
  let target: string | undefined;
  let prefix: PrefixOutcome | undefined;
  let prefixTarget: string | undefined;
  for (const { scorer, weight } of profile.scorers) {
    let info: ScoreInfo | undefined;
    let scores: Map<string, number> | undefined;
    if (scorer.scoreInto) {
      info = scorer.scoreInto(req, cands, scratch);
    } else if (scorer.scoreDetailed) {
      info = scorer.scoreDetailed(req, cands);
      scores = (info as ScoreDetail).scores;
    } else {
      scores = scorer.score(req, cands);
    }
    if (info !== undefined) {
      // `no_session` says only that tier 0 had no key: a later cache-aware scorer's decision (prefix) says more.
      if ((decision === undefined || decision === 'no_session') && info.cacheDecision !== undefined) {
        decision = info.cacheDecision;
        target = info.target;
      }
      if (prefix === undefined && info.prefix !== undefined) {
        prefix = info.prefix;
        prefixTarget = info.target;
      }
    }
    const name = scorer.name;
    for (let i = 0; i < n; i++) {
      const s = scored[i];
      const v = clamp01(scores === undefined ? scratch[i] : scores.get(s.endpoint.id));
      s.perScorer[name] = v;
      s.total += weight * v;
    }
  }

  const picked = profile.picker.pick(req, scored, opts.random);
  if (picked === undefined) return noEndpoint('picker_empty', considered, filtered);

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

/**
 * Scores of the scorer being summed (`Scorer.scoreInto`): one buffer reused by
 * every decision, read back before the next scorer runs. `schedule()` is
 * synchronous and scorers do not schedule, so nothing else writes it meanwhile.
 */
let scratch = new Float64Array(32);

function noEndpoint(reason: NoEndpointReason, considered: number, filtered: Record<string, number>): PickResult {
  return { kind: 'no_endpoint', reason, considered, filtered };
}

function withoutExcluded(eps: readonly EndpointView[], ex: ReadonlySet<string>, filtered: Record<string, number>): EndpointView[] {
  const out: EndpointView[] = [];
  for (const e of eps) if (!ex.has(e.id)) out.push(e);
  filtered.exclude = eps.length - out.length;
  return out;
}

function inPool(eps: readonly EndpointView[], pool: string, filtered: Record<string, number>): EndpointView[] {
  const out: EndpointView[] = [];
  for (const e of eps) if (e.pool === pool) out.push(e);
  filtered.pool = eps.length - out.length;
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

/**
 * Cache decision labels (`x-llmgw-cache-decision`, `llmgw_cache_decision_total{decision}`).
 * Stable: dashboards and alerts key on them.
 *
 * - `session_hit`: the session scorer's ring choice was within its load bound and was picked.
 * - `session_overflow`: the ring choice was over `load_factor` × average; the next replica on
 *   the ring was picked instead.
 * - `session_override`: the session scorer named a replica but the picker chose another
 *   (the other scorers outweighed affinity, or a sampling picker did not see it).
 * - `no_session`: the profile has a session scorer but the request carried no session key.
 * - `none`: the profile has no cache-aware scorer.
 * - the PREFIX_DECISIONS below, when the profile's first cache-aware scorer is `prefix`.
 */
export const CACHE_DECISIONS = [
  'session_hit',
  'session_overflow',
  'session_override',
  'no_session',
  'none',
  'cache_hit',
  'cache_miss_min_load',
  'load_balance_override',
  'stale',
  'no_tree',
  'no_healthy_worker',
] as const;
export type CacheDecision = (typeof CACHE_DECISIONS)[number];

/**
 * The prefix scorer's decisions (`llmgw_prefix_decisions_total{decision}`, docs/prefix.md), stable:
 * - `cache_hit`: a candidate's match ratio reached `cache_threshold` and it was picked.
 * - `cache_miss_min_load`: no candidate matched enough; the least loaded one is preferred.
 * - `load_balance_override`: the balance guard fired (max − min load > abs and max > min × rel),
 *   or the picker chose another replica than the best match (other scorers outweighed it).
 * - `stale`: the best match is a replica that is not a candidate now (cooling down, draining,
 *   gone, already tried); load decides among the rest.
 * - `no_tree`: nothing is known for this model and prompt (first request, no prompt text, or a
 *   prompt shorter than one chunk).
 * - `no_healthy_worker`: no candidate was left to score (counted by the router when scheduling
 *   finds no endpoint for a profile with a prefix scorer).
 */
export const PREFIX_DECISIONS = ['cache_hit', 'cache_miss_min_load', 'load_balance_override', 'stale', 'no_tree', 'no_healthy_worker'] as const;
export type PrefixDecision = (typeof PREFIX_DECISIONS)[number];

/**
 * `no_endpoint` reasons (`llmgw_schedule_failures_total{reason}`), stable:
 * - `no_candidates`: the caller passed no endpoints.
 * - `all_filtered`: every endpoint was removed by `exclude` or a filter.
 * - `pool_unavailable`: `opts.pool` was given and none of its endpoints survived the filters.
 * - `picker_empty`: the picker returned nothing (a plugin bug; built-in pickers never do).
 */
export const NO_ENDPOINT_REASONS = ['no_candidates', 'all_filtered', 'pool_unavailable', 'picker_empty'] as const;
export type NoEndpointReason = (typeof NO_ENDPOINT_REASONS)[number];

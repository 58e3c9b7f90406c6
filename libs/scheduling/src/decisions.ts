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
 */
export const CACHE_DECISIONS = ['session_hit', 'session_overflow', 'session_override', 'no_session', 'none'] as const;
export type CacheDecision = (typeof CACHE_DECISIONS)[number];

/**
 * `no_endpoint` reasons (`llmgw_schedule_failures_total{reason}`), stable:
 * - `no_candidates`: the caller passed no endpoints.
 * - `all_filtered`: every endpoint was removed by `exclude` or a filter.
 * - `pool_unavailable`: `opts.pool` was given and none of its endpoints survived the filters.
 * - `picker_empty`: the picker returned nothing (a plugin bug; built-in pickers never do).
 */
export const NO_ENDPOINT_REASONS = ['no_candidates', 'all_filtered', 'pool_unavailable', 'picker_empty'] as const;
export type NoEndpointReason = (typeof NO_ENDPOINT_REASONS)[number];

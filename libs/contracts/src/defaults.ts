/**
 * Defaults shared by admission, scheduling, config and the router — defined
 * here once (docs/admission.md) and imported everywhere they apply.
 */

/** One default priority band: higher `priority` is served first; waits once pool saturation would pass `saturationCeiling`. */
export interface DefaultBand {
  readonly name: string;
  readonly priority: number;
  readonly saturationCeiling: number;
}

/** The four default bands of docs/admission.md#queues, top first. */
export const DEFAULT_BANDS: readonly DefaultBand[] = Object.freeze([
  Object.freeze({ name: 'platinum', priority: 400, saturationCeiling: 1.0 }),
  Object.freeze({ name: 'gold', priority: 300, saturationCeiling: 0.85 }),
  Object.freeze({ name: 'silver', priority: 200, saturationCeiling: 0.6 }),
  Object.freeze({ name: 'bronze', priority: 100, saturationCeiling: 0.3 }),
]);

/** Engine queue depth per replica at which a pool counts as saturated on queueing (`target_waiting_per_replica`, docs/admission.md#configuration). */
export const DEFAULT_TARGET_WAITING_PER_REPLICA = 4;

/** KV-cache occupancy at which a replica counts as saturated (`kv_ceiling`, docs/admission.md#configuration). */
export const DEFAULT_KV_CEILING = 0.9;

/** The prefix of every Redis key llmgw writes, unless a config's `key_prefix` says otherwise. */
export const DEFAULT_REDIS_KEY_PREFIX = 'llmgw:';

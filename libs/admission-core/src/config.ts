import { DEFAULT_BANDS as SHARED_DEFAULT_BANDS, DEFAULT_KV_CEILING, DEFAULT_TARGET_WAITING_PER_REPLICA } from '@llmgw/contracts';
import type { SaturationThresholds } from './types';

/** How turns are shared between tenants inside one band. */
export type FairnessMode = 'round-robin' | 'tokens';

/** One priority band (docs/admission.md#queues). */
export interface BandConfig {
  name: string;
  /** Higher is scanned first. Unique across bands. */
  priority: number;
  /**
   * The band's requests wait once the pool's saturation would exceed this.
   * 1.00 holds only past the healthy limit; a value above 1 means never wait.
   */
  saturationCeiling: number;
  /**
   * `round-robin`: every turn costs 1, so tenants alternate. `tokens`: a turn
   * costs the request's estimated tokens (virtual token counter), so a tenant
   * sending huge prompts cannot take the share of one sending small ones.
   */
  fairness?: FairnessMode;
  /** Overrides `queueCapacityPerBand` for this band. */
  queueCapacity?: number;
}

/** Everything the in-process admission controller needs; units in the names. */
export interface AdmissionCoreConfig extends SaturationThresholds {
  /** Longest a request may wait in a queue before it is turned away with `ttl`. */
  queueTtlMs: number;
  /** Bound of each band's queue; beyond it new requests are rejected `full` at once. */
  queueCapacityPerBand: number;
  /**
   * Bound over all bands together. When reached, the newest request of the
   * lowest non-empty band below the arriving one is `displaced`; when there is
   * none, the arriving request is rejected `full`. Undefined = no total bound.
   */
  totalQueueCapacity?: number;
  bands: BandConfig[];
  /**
   * Batch slots per replica (with a confirmed capacity) that a band below the
   * top leaves free when it borrows beyond its share: what the next
   * higher-band request finds free. Default 1.
   */
  slotHeadroomPerReplica?: number;
  /** Per-model threshold overrides (docs/admission.md#the-saturation-detector-with-a-slot-component: both thresholds per model). */
  models?: Record<string, Partial<SaturationThresholds>>;
}

/** The four default bands of docs/admission.md#queues. */
export const DEFAULT_BANDS: readonly BandConfig[] = SHARED_DEFAULT_BANDS;

/** The defaults (docs/admission.md#configuration). */
export const DEFAULT_ADMISSION_CONFIG: Readonly<AdmissionCoreConfig> = Object.freeze({
  targetWaitingPerReplica: DEFAULT_TARGET_WAITING_PER_REPLICA,
  kvCeiling: DEFAULT_KV_CEILING,
  queueTtlMs: 30_000,
  queueCapacityPerBand: 2000,
  bands: DEFAULT_BANDS as BandConfig[],
});

/** Throws on a config the controller cannot run with (duplicate names, non-positive bounds). */
export function validateAdmissionConfig(c: AdmissionCoreConfig): void {
  const problems: string[] = [];
  if (c.bands.length === 0) problems.push('bands: at least one band is required');
  const names = new Set<string>();
  const prios = new Set<number>();
  for (const b of c.bands) {
    if (names.has(b.name)) problems.push(`bands: duplicate name ${b.name}`);
    if (prios.has(b.priority)) problems.push(`bands: duplicate priority ${b.priority}`);
    if (!(b.saturationCeiling >= 0)) problems.push(`bands.${b.name}: saturation_ceiling must be >= 0`);
    names.add(b.name);
    prios.add(b.priority);
  }
  if (!(c.targetWaitingPerReplica > 0)) problems.push('target_waiting_per_replica must be > 0');
  if (!(c.kvCeiling > 0)) problems.push('kv_ceiling must be > 0');
  if (!(c.queueTtlMs > 0)) problems.push('queue_ttl must be > 0');
  if (!(c.queueCapacityPerBand >= 0)) problems.push('queue_capacity_per_band must be >= 0');
  if (c.slotHeadroomPerReplica !== undefined && !(Number.isInteger(c.slotHeadroomPerReplica) && c.slotHeadroomPerReplica >= 0)) {
    problems.push('slot_headroom_per_replica must be an integer >= 0');
  }
  if (problems.length) throw new Error(`invalid admission config: ${problems.join('; ')}`);
}

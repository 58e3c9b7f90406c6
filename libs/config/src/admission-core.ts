import { z } from 'zod';
import type { AdmissionCoreConfig, BandConfig } from '@llmgw/admission-core';
import { DEFAULT_BANDS, DEFAULT_KV_CEILING, DEFAULT_TARGET_WAITING_PER_REPLICA } from '@llmgw/contracts';
import { duration } from './load';

/** One priority band (docs/admission.md#queues). */
export const bandConfigSchema = z
  .object({
    name: z.string().min(1),
    /** Higher is scanned first; unique. */
    priority: z.number().int(),
    /** Requests wait once pool saturation would pass this; > 1 = never wait. */
    saturation_ceiling: z.number().min(0),
    /** round-robin: a turn costs 1; tokens: a turn costs the request's estimated tokens. */
    fairness: z.enum(['round-robin', 'tokens']).default('round-robin'),
    /** Overrides queue_capacity_per_band for this band. */
    queue_capacity: z.number().int().min(0).optional(),
  })
  .strict();

/** The default bands (@llmgw/contracts DEFAULT_BANDS) in config form. */
export const DEFAULT_BAND_CONFIGS: Array<z.output<typeof bandConfigSchema>> = DEFAULT_BANDS.map((b) => ({
  name: b.name,
  priority: b.priority,
  saturation_ceiling: b.saturationCeiling,
  fairness: 'round-robin',
}));

export const uniqueBands = (bands: Array<{ name: string; priority: number }> | undefined, ctx: z.RefinementCtx) => {
  if (!bands) return;
  const names = new Set<string>();
  const prios = new Set<number>();
  bands.forEach((b, i) => {
    if (names.has(b.name)) ctx.addIssue({ code: 'custom', path: ['bands', i, 'name'], message: `duplicate band name ${b.name}` });
    if (prios.has(b.priority)) ctx.addIssue({ code: 'custom', path: ['bands', i, 'priority'], message: `duplicate band priority ${b.priority}` });
    names.add(b.name);
    prios.add(b.priority);
  });
};

/**
 * The saturation detector and queue settings (the `admission:` block, docs/admission.md#configuration),
 * shared by the admission service and the router's local fallback. Every key
 * is optional here; `toAdmissionCoreConfig` fills the defaults.
 */
export const admissionCoreShape = {
  /** Engine queue depth per replica considered healthy. */
  target_waiting_per_replica: z.number().positive().optional(),
  /** KV occupancy considered full, 0..1. */
  kv_ceiling: z.number().positive().max(1).optional(),
  queue_ttl: duration().optional(),
  queue_capacity_per_band: z.number().int().min(0).optional(),
  /** Bound over all bands; reaching it displaces the newest request of the lowest band. */
  total_queue_capacity: z.number().int().min(0).optional(),
  /** Batch slots per replica a band below the top leaves free when it borrows beyond its share. */
  slot_headroom_per_replica: z.number().int().min(0).optional(),
  bands: z.array(bandConfigSchema).min(1).optional(),
  /** Per-model threshold overrides. */
  models: z
    .record(
      z.string(),
      z.object({ target_waiting_per_replica: z.number().positive().optional(), kv_ceiling: z.number().positive().max(1).optional() }).strict(),
    )
    .optional(),
};

type CoreInput = {
  target_waiting_per_replica?: number;
  kv_ceiling?: number;
  queue_ttl?: number;
  queue_capacity_per_band?: number;
  total_queue_capacity?: number;
  slot_headroom_per_replica?: number;
  bands?: Array<z.output<typeof bandConfigSchema>>;
  models?: Record<string, { target_waiting_per_replica?: number; kv_ceiling?: number }>;
};

/** The admission-core config from parsed settings, with the defaults of docs/admission.md#configuration. */
export function toAdmissionCoreConfig(c: CoreInput): AdmissionCoreConfig {
  const bands: BandConfig[] = (c.bands ?? DEFAULT_BAND_CONFIGS).map((b) => ({
    name: b.name,
    priority: b.priority,
    saturationCeiling: b.saturation_ceiling,
    fairness: b.fairness ?? 'round-robin',
    ...(b.queue_capacity !== undefined ? { queueCapacity: b.queue_capacity } : {}),
  }));
  const models: AdmissionCoreConfig['models'] = {};
  for (const [m, o] of Object.entries(c.models ?? {})) {
    models[m] = {
      ...(o.target_waiting_per_replica !== undefined ? { targetWaitingPerReplica: o.target_waiting_per_replica } : {}),
      ...(o.kv_ceiling !== undefined ? { kvCeiling: o.kv_ceiling } : {}),
    };
  }
  return {
    targetWaitingPerReplica: c.target_waiting_per_replica ?? DEFAULT_TARGET_WAITING_PER_REPLICA,
    kvCeiling: c.kv_ceiling ?? DEFAULT_KV_CEILING,
    queueTtlMs: c.queue_ttl ?? 30_000,
    queueCapacityPerBand: c.queue_capacity_per_band ?? 2000,
    ...(c.total_queue_capacity !== undefined ? { totalQueueCapacity: c.total_queue_capacity } : {}),
    slotHeadroomPerReplica: c.slot_headroom_per_replica ?? 1,
    bands,
    models,
  };
}

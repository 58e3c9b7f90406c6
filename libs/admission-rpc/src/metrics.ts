import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AdmissionRecorder } from '@llmgw/admission-core';

/** Seconds: admission waits run from 0 to queue_ttl (30 s by default). */
export const WAIT_BUCKETS = [0, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

function getOrCreate<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/**
 * The admission metrics (docs/admission.md#metrics) on `registry`: queue depth and wait per
 * {band,model}, rejections per {band,reason}, pool saturation per
 * {pool,model,component} (`max by (pool)` over components is the total).
 * Safe to call twice on one registry (the router's local fallback and its
 * remote client share them).
 */
export function createAdmissionMetrics(registry: Registry): AdmissionRecorder {
  const depth = getOrCreate(
    registry,
    'llmgw_admission_queue_depth',
    () =>
      new Gauge({ name: 'llmgw_admission_queue_depth', help: 'Requests waiting in admission queues.', labelNames: ['band', 'model'], registers: [registry] }),
  );
  const wait = getOrCreate(
    registry,
    'llmgw_admission_wait_seconds',
    () =>
      new Histogram({
        name: 'llmgw_admission_wait_seconds',
        help: 'Time granted requests spent queued in admission.',
        labelNames: ['band', 'model'],
        buckets: WAIT_BUCKETS,
        registers: [registry],
      }),
  );
  const rejected = getOrCreate(
    registry,
    'llmgw_admission_rejected_total',
    () =>
      new Counter({
        name: 'llmgw_admission_rejected_total',
        help: 'Requests turned away by admission.',
        labelNames: ['band', 'reason'],
        registers: [registry],
      }),
  );
  const sat = getOrCreate(
    registry,
    'llmgw_pool_saturation',
    () =>
      new Gauge({
        name: 'llmgw_pool_saturation',
        help: 'Saturation detector output per pool (1 = healthy limit), counting outstanding leases: component="total" is max of "slots" (batch slots in use / learned capacity), "queue" (engine queue / target) and "kv" (KV / ceiling).',
        labelNames: ['pool', 'model', 'component'],
        registers: [registry],
      }),
  );
  return {
    queueDepth: (band, model, d) => depth.set({ band, model }, d),
    waitSeconds: (band, model, s) => wait.observe({ band, model }, s),
    rejected: (band, reason) => rejected.inc({ band, reason }),
    poolSaturation: (pool, s, model, parts) => {
      sat.set({ pool, model, component: 'total' }, s);
      if (!parts) return;
      sat.set({ pool, model, component: 'slots' }, parts.slots);
      sat.set({ pool, model, component: 'queue' }, Number.isFinite(parts.queue) ? parts.queue : 1e9);
      sat.set({ pool, model, component: 'kv' }, parts.kv);
    },
  };
}

import type { SaturationParts } from './saturation';
import type { RejectReason } from './types';

/**
 * Where the controller reports its metrics (docs/admission.md#metrics). The lib stays free of
 * prom-client: services pass an adapter that writes
 * `llmgw_admission_queue_depth{band,model}`, `llmgw_admission_wait_seconds{band,model}`,
 * `llmgw_admission_rejected_total{band,reason}` and `llmgw_pool_saturation{pool}` (plus a `model` label, since pools may host several models, and a
 * `component` label: total, slots, queue, kv).
 */
export interface AdmissionRecorder {
  queueDepth(band: string, model: string, depth: number): void;
  /** Seconds a granted request spent queued (0 when granted at once). */
  waitSeconds(band: string, model: string, seconds: number): void;
  rejected(band: string, reason: RejectReason): void;
  /**
   * `model` is '' for a pool fed without a model (one model per pool).
   * `parts` are the components (slots, queue, kv) behind `saturation`.
   */
  poolSaturation(pool: string, saturation: number, model: string, parts?: SaturationParts): void;
}

export const noopRecorder: AdmissionRecorder = {
  queueDepth: () => undefined,
  waitSeconds: () => undefined,
  rejected: () => undefined,
  poolSaturation: () => undefined,
};

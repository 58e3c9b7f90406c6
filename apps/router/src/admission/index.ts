import type { AcquireResult, Admission, AdmissionRequest, Lease } from '@llmgw/admission-core';
import type { RouterConfig } from '@llmgw/config';
import type { Logger } from '@llmgw/observability';
import type { Registry } from 'prom-client';

/** What the router hands to its admission implementation. */
export interface AdmissionDeps {
  log: Logger;
  /** The router's metric registry (admin port). */
  registry: Registry;
}

/**
 * The router's admission seam (plan §7.1 step 5). The router calls
 * `acquire()` before scheduling and releases the lease when the response
 * completes. This default is a pass-through: always granted at once, the pool
 * being the first candidate.
 */
export function createAdmission(_cfg: RouterConfig, _deps: AdmissionDeps): Admission & { close?(): Promise<void> } {
  let seq = 0;
  return {
    async acquire(req: AdmissionRequest): Promise<AcquireResult> {
      const pool = req.candidatePools[0] ?? 'default';
      const lease: Lease = { id: `pass-${++seq}`, pool, release: () => undefined };
      return { kind: 'granted', lease, pool, queuedMs: 0 };
    },
  };
}

/**
 * The admission contract (docs/admission.md): *when* a request may proceed. The
 * router calls `acquire` before scheduling and holds the returned lease until
 * the response completes. Implemented in-process by this lib (the router's
 * fallback, and the engine of the admission service) and remotely over gRPC
 * (proto/llmgw/admission/v1).
 */
export interface AdmissionRequest {
  requestId: string;
  /** Priority band name (platinum/gold/silver/bronze by default). */
  band: string;
  /** Fairness key inside the band: the key's project, or a header before auth exists. */
  tenant: string;
  model: string;
  /** Pools that can serve the model, highest priority first. */
  candidatePools: string[];
  /** Prompt estimate + max_tokens; the cost of a turn under token-weighted fairness. */
  estimatedTokens: number;
  /** Absolute deadline, unix ms; the request is rejected with `ttl` when it passes. */
  deadlineMs?: number;
}

export type RejectReason = 'full' | 'ttl' | 'client_gone' | 'displaced';

export interface Lease {
  readonly id: string;
  /** The pool admission chose (spillover may pick a lower-priority pool). */
  readonly pool: string;
  /** Releases the slot; idempotent. */
  release(outcome?: LeaseOutcome): void;
}

export interface LeaseOutcome {
  /** HTTP status the client got. */
  status: number;
  promptTokens?: number;
  completionTokens?: number;
}

export type AcquireResult =
  | { kind: 'granted'; lease: Lease; pool: string; queuedMs: number }
  | { kind: 'rejected'; reason: RejectReason; retryAfterSeconds?: number; queuedMs: number; message: string };

export interface Admission {
  /** Resolves when the request may proceed or is turned away; `signal` aborting means the client is gone. */
  acquire(req: AdmissionRequest, signal?: AbortSignal): Promise<AcquireResult>;
  /**
   * A grant that needs no wait and no round trip (a router's credit from the admission service),
   * or undefined: then `acquire`. Asked first, it spares the caller the abort signal and the
   * promise a request that is admitted at once does not need.
   */
  grantNow?(req: AdmissionRequest): AcquireResult | undefined;
}

/** Load of one replica, as the saturation detector reads it. */
export interface ReplicaLoad {
  /** Scraped engine queue depth. */
  waiting: number;
  /** Scraped running batch size. */
  running: number;
  /** Scraped KV occupancy 0..1, when the engine has it. */
  kvUsage?: number;
  /** Requests dispatched to the replica and not finished (router-side count, not stale). */
  inflight: number;
  /** Learned batch capacity: high-water mark of observed `running`. */
  batchCapacity: number;
  /** The replica's own target waiting (measured capacity applied, docs/capacity.md); absent: the thresholds'. */
  targetWaiting?: number;
  /**
   * The engine has shown a lasting queue at this batch size, so
   * `batchCapacity` is its real slot count and the slot component of
   * saturation applies. Absent = not known (only queue and KV count).
   */
  capacityConfirmed?: boolean;
}

export interface SaturationThresholds {
  /** Engine queue depth per replica considered healthy (plan default 4). */
  targetWaitingPerReplica: number;
  /** KV occupancy considered full (plan default 0.90). */
  kvCeiling: number;
}

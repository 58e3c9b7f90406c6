import type { EngineKind } from '@llmgw/engine-metrics';

/**
 * One replica serving one model, as an endpoint source publishes it
 * (plan §6.4). Immutable; a change is a new object.
 */
export interface EndpointInfo {
  /** Stable replica id; the `x-llmgw-replica` value. */
  readonly id: string;
  /** Base URL of the OpenAI-compatible engine, e.g. http://10.0.0.5:8000 (no trailing slash). */
  readonly url: string;
  /** The catalog model it serves. */
  readonly model: string;
  /** Which metric vocabulary to read its /metrics with (vLLM when unnamed). */
  readonly engine: EngineKind;
  /** Pool = fabric × gpu class; "default" for static endpoints without one. */
  readonly pool: string;
  /** Pool priority: higher is preferred. */
  readonly priority: number;
  /** Relative capacity weight (default 100). */
  readonly weight: number;
  /** A draining replica gets no new requests; running ones finish. */
  readonly draining: boolean;
  /**
   * The engine's own scheduling policy (vLLM's `--scheduling-policy`).
   * `priority`: the router sends each request's band as the body's `priority`
   * (top band 0, then 1, 2, …), so the engine's waiting queue and preemption
   * follow the bands. Absent = `fcfs`: no `priority` is sent.
   */
  readonly schedulingPolicy?: SchedulingPolicy;
  /**
   * The engine's batch slots as it was started (`--max-num-seqs`), when
   * known: admission then counts it as the replica's confirmed capacity from
   * the first request instead of learning it from a persistent queue.
   */
  readonly maxNumSeqs?: number;
  /**
   * Where the replica publishes KV-cache events (vLLM `--kv-events-config`):
   * the ZMQ PUB `endpoint` and the optional ROUTER `replayEndpoint`, both
   * `tcp://host:port`. Absent: the replica has no tier-2 index.
   */
  readonly kvEvents?: KvEventsAddress;
}

export interface KvEventsAddress {
  readonly endpoint: string;
  readonly replayEndpoint?: string;
}

/** vLLM's `--scheduling-policy` values. */
export type SchedulingPolicy = 'fcfs' | 'priority';

/**
 * Where the router (and admission) learn which endpoints exist (plan §6.4).
 * Implementations always serve from a cached list: when their backing store
 * goes away they keep the last one they saw.
 */
export interface EndpointSource {
  /** Ready endpoints serving `model` (draining ones included, flagged). */
  endpoints(model: string): readonly EndpointInfo[];
  /** Every endpoint, across models. */
  all(): readonly EndpointInfo[];
  /** Model names that have at least one endpoint. */
  models(): string[];
  /** Called after the list changes; returns an unsubscribe function. */
  subscribe(cb: () => void): () => void;
  /** Unix ms of the last successful refresh from the backing store. */
  lastRefreshMs(): number;
  close(): Promise<void>;
}

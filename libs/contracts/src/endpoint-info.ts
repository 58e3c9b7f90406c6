import type { EngineDialect } from './engines';

/*
 * The one description of an endpoint from the placement-scheduler to the
 * routers (endpoint record v1, libs/endpoints redis-contract.ts, encodes it;
 * docs/wire-contracts.md). Here so that both the domain (libs/placement) and
 * the endpoint sources (libs/endpoints) name the same type.
 */

/**
 * One replica serving one model, as an endpoint source publishes it
 * (docs/architecture.md#the-control-loop). Immutable; a change is a new object.
 */
export interface EndpointInfo {
  /** Stable replica id; the `x-llmgw-replica` value. */
  readonly id: string;
  /** Base URL of the OpenAI-compatible engine, e.g. http://10.0.0.5:8000 (no trailing slash). */
  readonly url: string;
  /** The catalog model it serves. */
  readonly model: string;
  /** Which metric vocabulary to read its /metrics with (vLLM when unnamed). */
  readonly engine: EngineDialect;
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
   * Admission's target waiting per replica for this replica (queued ÷ it is
   * the queue component of saturation), as measured capacity applied it
   * (docs/capacity.md "Applying a profile"). Absent: admission's configured one.
   */
  readonly targetWaiting?: number;
  /**
   * Where the replica publishes KV-cache events (vLLM `--kv-events-config`):
   * the ZMQ PUB `endpoint` and the optional ROUTER `replayEndpoint`, both
   * `tcp://host:port`. Absent: the replica has no tier-2 index.
   */
  readonly kvEvents?: KvEventsAddress;
  /**
   * The engine requires an API key. `replica-key`: the replica's engine
   * secret, which a router derives from the cluster engine key and `id`
   * (libs/endpoints engine-secret.ts) and presents as `Authorization: Bearer`;
   * the record never carries the secret itself. Absent: none (or, for a
   * static endpoint, `apiKey`).
   */
  readonly auth?: EndpointAuth;
  /**
   * A static endpoint's own API key (`api_key_file` in the router's
   * config), read when the config loads. Never written to an endpoint
   * record, never set on a published one.
   */
  readonly apiKey?: string;
}

export interface KvEventsAddress {
  readonly endpoint: string;
  readonly replayEndpoint?: string;
}

/** vLLM's `--scheduling-policy` values. */
export type SchedulingPolicy = 'fcfs' | 'priority';

/** How a router authenticates to the engine (endpoint record `auth`). */
export type EndpointAuth = 'replica-key';

import type { EngineDialect, EngineStats } from '@llmgw/engine-metrics';
import type { PromptKey } from '@llmgw/prefix';

/**
 * What the scheduler sees of one endpoint (one replica serving one model).
 * Built by the router from its EndpointSource, its scrape loops, its own
 * inflight counts and its breaker/cooldown state; immutable per decision.
 */
export interface EndpointView {
  /** Stable replica id (also the `x-llmgw-replica` value). */
  id: string;
  url: string;
  /** The model this endpoint serves (catalog name). */
  model: string;
  /** Pool = fabric × gpu class; "default" for static endpoints without one. */
  pool: string;
  /** Pool priority: higher is preferred (pools first, then endpoints; docs/scheduling.md). */
  poolPriority: number;
  engine: EngineDialect;
  /** Relative capacity weight (profile weight, default 100). */
  weight: number;
  /** Draining endpoints get no new requests. */
  draining: boolean;
  /** The last scrape failed or is older than the staleness limit. */
  stale: boolean;
  /** False while the endpoint is cooling down or its breaker is open. */
  available: boolean;
  /** Last good scrape, if any. */
  stats?: EngineStats;
  /** Requests this router has in flight to the endpoint right now (never stale). */
  inflight: number;
  /** Observed completions per second (from the finished-requests counter), if known. */
  drainRate?: number;
  /** High-water mark of observed `running`: the learned batch capacity. */
  batchCapacity?: number;
}

/** The request facts scheduling may use. The body itself is never parsed here. */
export interface SchedRequest {
  requestId: string;
  /** Model after alias/fallback resolution. */
  model: string;
  /** Routing profile name (per model default, or `x-llmgw-profile`). */
  profile: string;
  /** `x-session-id`, else the body's `user`; drives tier-0 session affinity. */
  sessionKey?: string;
  /** bytes/4 prompt estimate. */
  estimatedPromptTokens: number;
  maxTokens?: number;
  /** The LoRA adapter the request names (`model: "base:adapter"` or the adapter's own name); drives the `lora` scorer. */
  adapter?: string;
  /** Replica pinned with `x-llmgw-replica` (falls through when unusable). */
  pinnedReplica?: string;
  /**
   * The prompt as the prefix scorer needs it (rendered text; vLLM block
   * hashes for models with KV events). Set by the router only when a profile
   * has a prefix scorer; the same object across retries.
   */
  prompt?: PromptKey;
}

/** Drops candidates (hard constraints). */
export interface Filter {
  readonly type: string;
  readonly name: string;
  filter(req: SchedRequest, eps: readonly EndpointView[]): EndpointView[];
}

/** Scores candidates in [0,1]; 1 is best. Values outside are clamped by the pipeline. */
export interface Scorer {
  readonly type: string;
  readonly name: string;
  score(req: SchedRequest, eps: readonly EndpointView[]): Map<string, number>;
  /**
   * Optional: the same scores plus the cache decision this scorer took
   * (cache-aware scorers: `session`, `prefix`). When present the
   * pipeline calls it instead of `score`.
   */
  scoreDetailed?(req: SchedRequest, eps: readonly EndpointView[]): ScoreDetail;
  /**
   * Optional fast path, preferred by `schedule()` over both: writes the score
   * of `eps[i]` to `out[i]` (the values `score` would map to each id; `out`
   * is at least `eps.length` long, scratch owned by the caller) and returns
   * what `scoreDetailed` reports besides the scores. No Map per decision
   * (docs/scheduling.md#performance).
   */
  scoreInto?(req: SchedRequest, eps: readonly EndpointView[], out: Float64Array): ScoreInfo | undefined;
  /** Optional: told which endpoint the decision picked (the prefix scorer records the prompt there). */
  picked?(req: SchedRequest, endpoint: EndpointView): void;
}

/** What a cache-aware scorer reports besides its scores. */
export interface ScoreDetail extends ScoreInfo {
  scores: Map<string, number>;
}

/** A cache-aware scorer's decision, without the scores. */
export interface ScoreInfo {
  /** Cache decision label (see `CacheDecision` in decisions.ts). */
  cacheDecision?: string;
  /** The replica the scorer wanted; lets the pipeline tell a hit from a picker override. */
  target?: string;
  /** The prefix scorer's decision and its best candidate's match ratio (metrics). */
  prefix?: PrefixOutcome;
}

export interface PrefixOutcome {
  /** One of PREFIX_DECISIONS (decisions.ts). */
  decision: string;
  /** Best candidate's matched fraction of the prompt, in [0, 1]. */
  matchRatio: number;
}

export interface ScoredEndpoint {
  endpoint: EndpointView;
  /** Σ weightᵢ · scoreᵢ */
  total: number;
  /** Clamped score per scorer name, before weighting. */
  perScorer: Record<string, number>;
}

/** Chooses one candidate from the scored list. `random` returns [0,1). */
export interface Picker {
  readonly type: string;
  readonly name: string;
  pick(req: SchedRequest, scored: readonly ScoredEndpoint[], random: () => number): ScoredEndpoint | undefined;
}

export interface WeightedScorer {
  scorer: Scorer;
  weight: number;
}

export interface RoutingProfile {
  name: string;
  filters: Filter[];
  scorers: WeightedScorer[];
  picker: Picker;
}

/** Outcome of one scheduling decision: a discriminated union, never thrown. */
export type PickResult =
  | {
      kind: 'picked';
      endpoint: EndpointView;
      pool: string;
      scored: ScoredEndpoint[];
      considered: number;
      /** Candidates removed, per filter name. */
      filtered: Record<string, number>;
      /** Tier-0/1 decision label for x-llmgw-cache-decision and metrics. */
      cacheDecision: string;
      /** Set when the profile has a prefix scorer (after picker overrides are accounted for). */
      prefix?: PrefixOutcome;
    }
  | {
      kind: 'no_endpoint';
      reason: string;
      considered: number;
      filtered: Record<string, number>;
    };

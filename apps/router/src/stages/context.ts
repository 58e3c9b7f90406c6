import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent } from 'undici';
import type { Lease } from '@llmgw/admission-core';
import type { RouterConfig } from '@llmgw/config';
import type { Principal } from '@llmgw/contracts';
import { requestLogger, type Logger } from '@llmgw/observability';
import type { EndpointView, RoutingProfile, schedule } from '@llmgw/scheduling';
import type { RouterAdmission } from '../admission';
import type { AdapterRef, AdapterRegistry } from '../adapters';
import type { ModelCatalog } from '../catalog';
import type { OnDemand } from '../on-demand';
import type { EndpointHealth } from '../endpoint-health';
import type { RouterMetrics } from '../metrics';
import type { PrefixRouting } from '../prefix';
import type { Providers } from '../providers';
import type { ClientPresence, StreamCut } from '../proxy';
import type { CapturedUsage } from '../sse';
import type { Reservation, TenancyHooks } from '../tenancy/types';
import type { EnginePriority } from '../admission/engine-priority';
import type { ApiKind } from '../api';
import type { PlanConfig, ServingPlan } from '../serving/plan';

export { API, type ApiKind, type ApiSpec } from '../api';

/** A tenancy implementation may scope `x-llmgw-replica` pinning to some keys. */
export type PinAwareTenancy = TenancyHooks & { allowReplicaPin?(p: Principal): boolean };

/**
 * The part of the router's configuration the stages read (createRouter
 * copies it out of the whole config; each stage's signature names the fields
 * it uses).
 */
export type StageConfig = PlanConfig &
  Pick<RouterConfig, 'json_max_depth' | 'default_band' | 'default_profile' | 'tenant_header' | 'inject_usage' | 'retries' | 'timeouts'> & {
    admission: Pick<RouterConfig['admission'], 'mode' | 'queue_ttl'>;
    prefix: { session_affinity: Pick<RouterConfig['prefix']['session_affinity'], 'enabled' | 'header'> };
  };

/** The stage configuration out of the whole router configuration. */
export function stageConfig(cfg: RouterConfig): StageConfig {
  const { json_max_depth, default_band, default_profile, tenant_header, inject_usage, retries, timeouts, cooldown_seconds } = cfg;
  const { enabled, header } = cfg.prefix.session_affinity;
  return {
    json_max_depth,
    default_band,
    default_profile,
    tenant_header,
    inject_usage,
    retries,
    timeouts,
    cooldown_seconds,
    admission: { mode: cfg.admission.mode, queue_ttl: cfg.admission.queue_ttl },
    prefix: { session_affinity: { enabled, header } },
  };
}

/**
 * What every stage reads: built once per router by createRouter, shared by
 * all requests. Stages never keep per-request state here.
 */
export interface RouterState {
  readonly cfg: StageConfig;
  readonly log: Logger;
  readonly profiles: ReadonlyMap<string, RoutingProfile>;
  readonly bandNames: readonly string[];
  readonly catalog: ModelCatalog;
  /** On-demand loading (with a Redis endpoint source): hold, then model_loading. */
  readonly onDemand?: OnDemand;
  readonly tenancy: PinAwareTenancy;
  readonly admission: RouterAdmission;
  /** Band → vLLM request `priority` for endpoints with `scheduling_policy: priority` (apps/router/src/admission). */
  readonly enginePriority?: EnginePriority;
  /** The `authorization` the router sends endpoint `id` (its replica secret or static key); undefined = none. */
  readonly engineAuthorization?: (id: string) => string | undefined;
  /** External providers (docs/models.md, "Providers"): endpoints `provider:<model>`, attempted with their own URL, key and timeouts. */
  readonly providers?: Providers;
  readonly metrics: RouterMetrics;
  readonly health: EndpointHealth;
  readonly agent: Agent;
  readonly random: () => number;
  readonly poolSaturated: NonNullable<Parameters<typeof schedule>[3]>['poolSaturated'];
  /** Last score per replica, exported as gauges. */
  readonly lastScores: Map<string, { total: number; perScorer: Record<string, number> }>;
  /** Scheduling views of the endpoints serving `model`, built fresh on each call. */
  views(model: string): EndpointView[];
  /** Prefix routing (tiers 1–2): the prompt key of a request and the decision metrics. */
  readonly prefix: PrefixRouting;
  /** Registers configured adapters with vLLM replicas before first use (adapters.ts). */
  readonly adapters?: AdapterRegistry;
}

const NO_BYTES = Buffer.alloc(0);

/**
 * One request's state as it moves through the stages, in order:
 * authenticate → parse → resolve model → reserve quota → admit → attempt → finish.
 * Each stage fills in its part; `finish` reads whatever was reached.
 */
export class RequestContext implements ClientPresence {
  readonly started = performance.now();
  /** Made only when a wait (admission's queue, an on-demand hold) asks for `signal`: most requests never wait. */
  private leaveSignal: AbortController | undefined;
  private leaveWatcher: (() => void) | undefined;
  private left_ = false;

  // authenticate
  principal?: Principal;
  // parse
  buf: Buffer = NO_BYTES;
  body: Record<string, any> = {};
  // resolve model
  /** The model name as the client sent it. */
  requested?: string;
  band = '';
  profile?: RoutingProfile;
  profileName?: string;
  maxTokens?: number;
  estimatedPromptTokens = 0;
  estimatedTokens = 0;
  /** The canonical model the requested name resolved to. */
  resolved?: string;
  /** The LoRA adapter the requested name names (`resolved` is its base model; adapters.ts). */
  adapter?: AdapterRef;
  /**
   * The serving plan (serving/plan.ts), made by resolve model: the model chain and the
   * model served, the quota reservation, the admission lease. Reserve, admit and attempt
   * advance it; the getters below only read it.
   */
  plan?: ServingPlan;
  // attempt
  pool?: string;
  endpoint?: string;
  decision = 'none';
  attempts = 0;
  ttftMs?: number;
  usage?: CapturedUsage;
  /** Why a stream that had started ended early (the client got an error event). */
  streamCut?: StreamCut['reason'];
  // finish
  status = 0;
  clientGone = false;

  /** The canonical model asked for; after reserve, the model the reservation is for (a budget fallback may change it). */
  get model(): string | undefined {
    return this.plan?.model ?? this.resolved;
  }

  /** The model being served (a fallback when the chain moved on); set by admission. */
  get servedModel(): string | undefined {
    return this.plan?.served;
  }

  get reservation(): Reservation | undefined {
    return this.plan?.reservation;
  }

  get lease(): Lease | undefined {
    return this.plan?.lease;
  }

  get queueMs(): number | undefined {
    return this.plan?.queueMs;
  }

  constructor(
    readonly kind: ApiKind,
    readonly reqId: string,
    readonly raw: IncomingMessage,
    readonly res: ServerResponse,
  ) {}

  /** This request's child of `base`: request id, and key and project id once authenticated. */
  logger(base: Logger): Logger {
    return requestLogger(base, { reqId: this.reqId, keyId: this.principal?.keyId, projectId: this.principal?.projectId });
  }

  /** The client closed its connection before the answer was finished. */
  get left(): boolean {
    return this.left_;
  }

  /** The response closed before it finished: the client left. Aborts `signal` and tells the watcher (the attempt). */
  clientLeft(): void {
    if (this.left_) return;
    this.left_ = true;
    this.leaveSignal?.abort();
    const watcher = this.leaveWatcher;
    this.leaveWatcher = undefined;
    watcher?.();
  }

  watchLeave(fn: (() => void) | undefined): void {
    this.leaveWatcher = fn;
  }

  /** Aborts when the client leaves. */
  get signal(): AbortSignal {
    if (!this.leaveSignal) {
      this.leaveSignal = new AbortController();
      if (this.left_) this.leaveSignal.abort();
    }
    return this.leaveSignal.signal;
  }

  /**
   * The answer has started reaching the client, so no other attempt follows: the parsed body and
   * the raw bytes are let go. With a long prompt they (with the prompt key, stages/attempt.ts) are
   * most of what an open stream holds; the bytes sent upstream stay with undici until the answer ends.
   */
  releasePrompt(): void {
    this.body = {};
    this.buf = NO_BYTES;
  }

  /** A request header, first value, undefined when absent or empty. */
  header(name: string): string | undefined {
    const v = this.raw.headers[name.toLowerCase()];
    const s = Array.isArray(v) ? v[0] : v;
    return s === undefined || s === '' ? undefined : s;
  }
}

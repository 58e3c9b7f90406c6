import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent } from 'undici';
import type { ZodType } from 'zod';
import type { Lease } from '@llmgw/admission-core';
import type { RouterConfig } from '@llmgw/config';
import { ChatCompletionRequest, CompletionRequest, EmbeddingRequest, PassthroughRequest, ResponsesRequest, type Principal } from '@llmgw/contracts';
import { requestLogger, type Logger } from '@llmgw/observability';
import type { EndpointView, RoutingProfile, schedule } from '@llmgw/scheduling';
import type { RouterAdmission } from '../admission';
import type { ModelCatalog } from '../catalog';
import type { OnDemand } from '../on-demand';
import type { EndpointHealth } from '../endpoint-health';
import type { RouterMetrics } from '../metrics';
import type { PrefixRouting } from '../prefix';
import type { StreamCut } from '../proxy';
import type { CapturedUsage } from '../sse';
import type { Reservation, TenancyHooks } from '../tenancy';
import type { EnginePriority } from '../admission/engine-priority';

/** The APIs the router serves through the stages. */
export type ApiKind = 'chat' | 'completions' | 'embeddings' | 'responses' | 'rerank' | 'score' | 'tokenize' | 'detokenize';

export interface ApiSpec {
  path: string;
  schema: ZodType;
  /** `"stream": true` gets an SSE answer. */
  streams: boolean;
  /** Streams carry usage only when asked (`stream_options.include_usage`), so the router may ask for it. */
  injectUsage: boolean;
  /** An engine route outside OpenAI's API, served only when listed in `passthrough_routes`. */
  passthrough: boolean;
}

const engineRoute = { streams: false, injectUsage: false, passthrough: true, schema: PassthroughRequest };

export const API: Record<ApiKind, ApiSpec> = {
  chat: { path: '/v1/chat/completions', schema: ChatCompletionRequest, streams: true, injectUsage: true, passthrough: false },
  completions: { path: '/v1/completions', schema: CompletionRequest, streams: true, injectUsage: true, passthrough: false },
  embeddings: { path: '/v1/embeddings', schema: EmbeddingRequest, streams: false, injectUsage: false, passthrough: false },
  // The Responses API's final event (`response.completed`) always carries usage.
  responses: { path: '/v1/responses', schema: ResponsesRequest, streams: true, injectUsage: false, passthrough: false },
  rerank: { path: '/v1/rerank', ...engineRoute },
  score: { path: '/v1/score', ...engineRoute },
  tokenize: { path: '/tokenize', ...engineRoute },
  detokenize: { path: '/detokenize', ...engineRoute },
};

/** A tenancy implementation may scope `x-llmgw-replica` pinning to some keys. */
export type PinAwareTenancy = TenancyHooks & { allowReplicaPin?(p: Principal): boolean };

/**
 * What every stage reads: built once per router by createRouter, shared by
 * all requests. Stages never keep per-request state here.
 */
export interface RouterState {
  readonly cfg: RouterConfig;
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
}

/**
 * One request's state as it moves through the stages, in order:
 * authenticate → parse → resolve model → reserve quota → admit → attempt → finish.
 * Each stage fills in its part; `finish` reads whatever was reached.
 */
export class RequestContext {
  readonly started = performance.now();
  readonly abort = new AbortController();

  // authenticate
  principal?: Principal;
  // parse
  buf: Buffer = Buffer.alloc(0);
  body: Record<string, any> = {};
  // resolve model
  /** The model name as the client sent it. */
  requested?: string;
  /** Canonical model; after reserve, the model the reservation is for (a budget fallback may change it). */
  model?: string;
  band = '';
  profile?: RoutingProfile;
  profileName?: string;
  maxTokens?: number;
  estimatedPromptTokens = 0;
  estimatedTokens = 0;
  // reserve
  reservation?: Reservation;
  /** `model` then its fallbacks the key may use (docs/router.md, "Upstream attempts, retries, timeouts"). */
  chain: string[] = [];
  // admit
  chainIdx = -1;
  /** The model being served (a fallback when the chain moved on). */
  servedModel?: string;
  lease?: Lease;
  queueMs?: number;
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

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** A request header, first value, undefined when absent or empty. */
  header(name: string): string | undefined {
    const v = this.raw.headers[name.toLowerCase()];
    const s = Array.isArray(v) ? v[0] : v;
    return s === undefined || s === '' ? undefined : s;
  }
}

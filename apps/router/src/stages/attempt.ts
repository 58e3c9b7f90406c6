import { LlmgwError } from '@llmgw/errors';
import { inSpan, injectTrace, type Span } from '@llmgw/observability';
import { schedule, type EndpointView, type SchedRequest } from '@llmgw/scheduling';
import { rewriteForAdapter } from '../adapters';
import { attempt, type AttemptResult } from '../proxy';
import { API, type RequestContext, type RouterState, type StageConfig } from './context';

/** What the attempt stage reads of the router state and configuration. */
export type AttemptState = Omit<RouterState, 'cfg' | 'profiles' | 'bandNames' | 'catalog' | 'onDemand' | 'admission'> & {
  cfg: Pick<StageConfig, 'inject_usage' | 'prefix' | 'admission' | 'retries' | 'timeouts' | 'cooldown_seconds'>;
};

/** What goes upstream, the same for every attempt of one request (the body is re-encoded per model and priority). */
interface Outgoing {
  readonly stream: boolean;
  /** Usage was asked for on the client's behalf: the engine's usage chunk is not passed on. */
  withhold: boolean;
  sched: SchedRequest;
  /** The prompt key while a tokenizer worker keys it (docs/prefix.md#block-hashes); bounded by kv_events.tokenize_timeout. */
  readonly prompt?: Promise<SchedRequest['prompt']>;
  readonly headers: Record<string, string>;
  /** The client's own trace context, passed on as it came when no tracing SDK records spans. */
  readonly clientTrace: Record<string, string>;
  /** The encoded body and the model (and engine priority) it was encoded for. */
  bodyFor: string;
  body: Buffer;
}
import { providerAttempt } from '../providers';
import { pinnedReplica } from './pin';

/**
 * Stage 6, attempt: pick an endpoint (filter → score → pick, inside the
 * granted pool when admission is on), send the request, and stream the
 * answer back. A failure before the first byte reaches the client
 * (connection refused, 503, 429) is retried on another endpoint, up to
 * `retries`; when no endpoint of the model is left, the request moves down
 * its fallback chain: the serving plan moves on (serving/plan.ts), rebinding
 * the reservation — a fallback the key may not use or pay for is skipped —
 * and moving the admission lease to the new model's pools. A pick outside
 * the lease's pool moves the lease to the pick's pool.
 */
export async function attemptUpstream(s: AttemptState, c: RequestContext): Promise<void> {
  const out = outgoing(s, c);
  if (out.prompt) out.sched = { ...out.sched, prompt: await out.prompt };
  const tried = new Set<string>();
  let lastError: LlmgwError | undefined;
  let result: AttemptResult | undefined;
  let attemptStarted = c.started;
  while (c.attempts <= s.cfg.retries) {
    const next = await nextEndpoint(s, c, out.sched, tried);
    if (next.refused) lastError = next.refused;
    if (!next.endpoint) break;
    attemptStarted = performance.now();
    // The pick already counts in the endpoint's inflight (nextEndpoint); it stops counting when the attempt ends.
    try {
      result = await proxyTo(s, c, next.endpoint, out);
      // A vLLM replica that forgot an adapter the router registered there (it restarted): registered again and resent, once.
      if (result.kind === 'error' && c.adapter && s.adapters?.lost(next.endpoint, c.adapter, result.error)) result = await proxyTo(s, c, next.endpoint, out);
    } finally {
      healthOf(s, next.endpoint.id).end(next.endpoint.id);
      s.prefix.inflightChanged();
    }
    if (result.kind !== 'retry') break;
    lastError = result.error;
    s.metrics.retries.inc({ model: c.plan!.served!, reason: result.reason });
    c.logger(s.log).debug({ endpoint: next.endpoint.id, reason: result.reason, attempt: c.attempts }, 'upstream attempt failed; retrying elsewhere');
  }
  if (!result || result.kind === 'retry') {
    throw (
      lastError ?? new LlmgwError('LLMGW_ERR_NO_ENDPOINT', `no usable endpoint serves ${c.model}`, { retryAfterSeconds: Math.max(1, s.cfg.cooldown_seconds) })
    );
  }
  if (result.kind === 'error') throw result.error;
  served(s, c, result, attemptStarted);
}

/** The request as it goes upstream: stream or not, usage asked for, the scheduling request, headers. */
function outgoing(s: AttemptState, c: RequestContext): Outgoing {
  const { cfg } = s;
  const api = API[c.kind];
  const body = c.body;
  const profile = c.profile!;
  const model = c.plan!.served!;
  const stream = api.streams && body.stream === true;
  let withhold = false;
  if (stream && api.injectUsage && cfg.inject_usage && body.stream_options?.include_usage !== true) {
    body.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
    withhold = true;
  }
  const affinity = cfg.prefix.session_affinity;
  const prompt = s.prefix.promptFor(c.kind, body, model, profile);
  const sched: SchedRequest = {
    requestId: c.reqId,
    model,
    profile: profile.name,
    sessionKey: affinity.enabled ? sessionKeyOf(c.header(affinity.header), body.user, c.principal?.projectId) : undefined,
    estimatedPromptTokens: c.estimatedPromptTokens,
    maxTokens: c.maxTokens,
    adapter: c.adapter?.name,
    pinnedReplica: pinnedReplica(s, c),
    prompt: prompt instanceof Promise ? undefined : prompt,
  };
  // Without a tracing SDK nothing is injected per attempt: the client's own trace context goes on as it came.
  const clientTrace: Record<string, string> = {};
  for (const k of ['traceparent', 'tracestate']) {
    const v = c.header(k);
    if (v) clientTrace[k] = v;
  }
  return {
    stream,
    withhold,
    sched,
    ...(prompt instanceof Promise ? { prompt } : {}),
    headers: { 'content-type': 'application/json', 'x-request-id': c.reqId },
    clientTrace,
    bodyFor: '',
    body: Buffer.alloc(0),
  };
}

/**
 * Tier 0's key (docs/scheduling.md#session-affinity-tier-0-in-detail): the session header, else the body's
 * `user`; with auth on it is hashed within the key's project, so equal ids of different projects (a `user`
 * of "default", a session "1") are placed independently and one project cannot aim at another's sessions.
 */
export function sessionKeyOf(header: string | undefined, user: unknown, projectId: string | undefined): string | undefined {
  const raw = header || (typeof user === 'string' && user !== '' ? user : undefined);
  if (raw === undefined) return undefined;
  return projectId === undefined ? raw : `${projectId}\u001f${raw}`;
}

/**
 * The next endpoint to try for the model the plan serves — in the lease's pool when admission
 * is on, else (or when that pool has none left) anywhere — moving down the chain while the
 * model has none left. No endpoint at the chain's end; `refused`: a fallback skipped on the way.
 */
async function nextEndpoint(
  s: AttemptState,
  c: RequestContext,
  sched: SchedRequest,
  tried: Set<string>,
): Promise<{ endpoint?: EndpointView; refused?: LlmgwError }> {
  const { metrics } = s;
  const plan = c.plan!;
  const profile = c.profile!;
  const admitted = s.cfg.admission.mode !== 'off';
  let refused: LlmgwError | undefined;
  for (;;) {
    const model = plan.served!;
    const restrictPool = admitted ? plan.lease?.pool : undefined;
    const candidates = s.views(model);
    const opts = { random: s.random, exclude: tried, poolSaturated: s.poolSaturated };
    let pick = schedule(profile, { ...sched, model }, candidates, { ...opts, pool: restrictPool });
    if (pick.kind === 'no_endpoint' && restrictPool !== undefined) pick = schedule(profile, { ...sched, model }, candidates, opts);
    s.prefix.observe(model, profile, pick);
    if (pick.kind === 'picked') {
      metrics.considered.observe({ model }, pick.considered);
      for (const [f, n] of Object.entries(pick.filtered)) if (n > 0) metrics.filtered.inc({ model, filter: f }, n);
      // The scored entry itself (it has total and perScorer): no object per candidate per request.
      for (const sc of pick.scored) s.lastScores.set(sc.endpoint.id, sc);
      c.decision = pick.cacheDecision;
      metrics.cacheDecision.inc({ model, decision: pick.cacheDecision });
      // Counted in the endpoint's inflight in the same turn as the pick, so that requests granted together
      // (one admission release lets a burst go) are each scheduled on the counts the ones before left.
      const health = healthOf(s, pick.endpoint.id);
      health.begin(pick.endpoint.id);
      s.prefix.inflightChanged();
      tried.add(pick.endpoint.id);
      try {
        // Outside the granted pool (it had no endpoint left): the lease follows the request there.
        if (admitted) await plan.follow(pick.endpoint.pool);
      } catch (e) {
        health.end(pick.endpoint.id);
        s.prefix.inflightChanged();
        throw e;
      }
      return { endpoint: pick.endpoint, refused };
    }
    metrics.scheduleFailures.inc({ model, reason: pick.reason });
    // An availability fallback: the plan moves down the chain.
    const step = await plan.advance(tried);
    if (step.refused) refused = step.refused;
    if (!step.moved) return { refused };
  }
}

/** One proxy attempt to `ep`, with its own span; the endpoint's health learns the outcome. */
async function proxyTo(s: AttemptState, c: RequestContext, ep: EndpointView, out: Outgoing): Promise<AttemptResult> {
  const { cfg } = s;
  const model = c.plan!.served!;
  const provider = s.providers?.get(ep.id);
  const health = healthOf(s, ep.id);
  c.endpoint = ep.id;
  c.pool = ep.pool;
  encodeBody(s, c, ep, out);
  if (c.adapter?.base === model) await s.adapters?.ensure(ep, c.adapter, s.engineAuthorization?.(ep.id));
  c.attempts++;
  const queueMs = String(Math.round(c.queueMs ?? 0));
  const decision = c.decision;
  // One span per proxy attempt; the engine gets it as its parent in `traceparent`.
  const result: AttemptResult = await inSpan(
    'router.proxy_attempt',
    { 'llmgw.endpoint': ep.id, 'llmgw.pool': ep.pool, 'llmgw.model': model, 'llmgw.attempt': c.attempts },
    (span) => {
      const input: Parameters<typeof attempt>[0] = {
        url: `${ep.url}${API[c.kind].path}`,
        body: out.body,
        headers: withAuth(withTrace(out.headers, out.clientTrace, span), s.engineAuthorization?.(ep.id)),
        stream: out.stream,
        withholdUsage: out.withhold,
        agent: s.agent,
        timeouts: { firstToken: cfg.timeouts.first_token, total: cfg.timeouts.total, idle: out.stream ? cfg.timeouts.idle : 0 },
        client: c,
        errorEventStyle: c.kind === 'responses' ? 'responses' : 'chat',
        res: c.res,
        answerStarted: () => releasePrompt(c, out),
        responseHeaders: () => ({
          ...c.reservation?.rateLimitHeaders,
          'x-request-id': c.reqId,
          'x-llmgw-replica': ep.id,
          'x-llmgw-pool': ep.pool,
          'x-llmgw-served-model': model,
          'x-llmgw-queue-ms': queueMs,
          'x-llmgw-cache-decision': decision,
        }),
      };
      if (!provider) return attempt(input);
      const via = providerAttempt(s.providers!, provider, input, { apiPath: API[c.kind].path, model, estimatedPromptTokens: c.estimatedPromptTokens });
      return attempt(via.input).then(via.settle);
    },
  );
  if (result.endpointFault) health.failure(ep.id);
  else if (result.kind === 'served' || result.kind === 'error') health.success(ep.id);
  return result;
}

/** The client's bytes go out as they came unless the model, stream_options, engine priority or an adapter's form must change. */
function encodeBody(s: AttemptState, c: RequestContext, ep: EndpointView, out: Outgoing): void {
  // A provider gets its own name for the model, and is always asked for usage (docs/models.md, "Providers").
  const provider = s.providers?.get(ep.id);
  const model = provider?.cfg.model ?? c.plan!.served!;
  if (provider && out.stream && API[c.kind].injectUsage && c.body.stream_options?.include_usage !== true) {
    c.body.stream_options = { ...(c.body.stream_options ?? {}), include_usage: true };
    out.withhold = true;
  }
  const enginePrio = s.enginePriority?.forEndpoint(ep.id, c.band);
  const adapter = c.adapter?.base === model ? c.adapter : undefined;
  const bodyKey = `${model}\u0000${enginePrio ?? ''}\u0000${adapter ? ep.engine : ''}`;
  if (out.bodyFor === bodyKey) return;
  const prioChanged = s.enginePriority?.apply(c.body, ep.id, c.band) ?? false;
  if (model === c.requested && !out.withhold && !prioChanged) out.body = c.buf;
  else {
    c.body.model = model;
    if (adapter) rewriteForAdapter(c.body, adapter, ep.engine);
    out.body = Buffer.from(JSON.stringify(c.body));
  }
  out.bodyFor = bodyKey;
}

/** The answer has started reaching the client: the request's copies of the prompt are let go (RequestContext.releasePrompt). */
function releasePrompt(c: RequestContext, out: Outgoing): void {
  c.releasePrompt();
  if (out.sched.prompt) out.sched = { ...out.sched, prompt: undefined };
}

/** The attempt that answered the client: status, usage, time to first token, a cut stream, a fallback served. */
function served(s: AttemptState, c: RequestContext, result: Exclude<AttemptResult, { kind: 'retry' | 'error' }>, attemptStarted: number): void {
  const plan = c.plan!;
  // Time to first token as the client sees it: arrival → first byte of the attempt that served.
  c.ttftMs = result.ttftMs === undefined ? undefined : attemptStarted - c.started + result.ttftMs;
  c.usage = result.usage;
  if (result.kind === 'client_gone') {
    c.clientGone = true;
    c.status = 499;
    c.res.destroy();
  } else {
    c.status = result.status;
    if (result.cut) {
      c.streamCut = result.cut.reason;
      s.metrics.streamCuts.inc({ model: plan.served!, pool: c.pool ?? 'none', reason: result.cut.reason });
      c.logger(s.log).warn({ model: plan.served, endpoint: c.endpoint, reason: result.cut.reason, err: result.cut.error.message }, 'stream cut');
    }
  }
  if (plan.served !== plan.model) s.metrics.fallbacks.inc({ model: plan.model, served_model: plan.served! });
}

/**
 * The engine's own credential (its replica secret, or a static endpoint's key). Upstream headers are
 * built afresh for every request, so the client's authorization never reaches an engine.
 */
function withAuth(headers: Record<string, string>, authorization: string | undefined): Record<string, string> {
  if (authorization !== undefined) headers.authorization = authorization;
  return headers;
}

/** The upstream headers with the attempt span's trace context, or the client's when no SDK records spans. */
function withTrace(headers: Record<string, string>, clientTrace: Record<string, string>, span: Span): Record<string, string> {
  if (!span.isRecording()) return { ...headers, ...clientTrace };
  return injectTrace({ ...headers });
}

/** The health record an endpoint's inflight, breaker and cooldown live in: a provider's own, or the replicas'. */
function healthOf(s: AttemptState, id: string): AttemptState['health'] {
  return s.providers?.get(id) ? s.providers.health : s.health;
}

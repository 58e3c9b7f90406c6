import { isLlmgwError, LlmgwError } from '@llmgw/errors';
import { inSpan, injectTrace, type Span } from '@llmgw/observability';
import { schedule, type SchedRequest } from '@llmgw/scheduling';
import { attempt, type AttemptResult } from '../proxy';
import { API, type RequestContext, type RouterState } from './context';
import { pinnedReplica } from './pin';

/**
 * Stage 6, attempt: pick an endpoint (filter → score → pick, inside the
 * granted pool when admission is on), send the request, and stream the
 * answer back. A failure before the first byte reaches the client
 * (connection refused, 503, 429) is retried on another endpoint, up to
 * `retries`; when no endpoint of the model is left, the request moves down
 * its fallback chain (docs/router.md, "Upstream attempts, retries, timeouts"). Serving a model other than the one the
 * quota was reserved for re-checks what the key may pay for first
 * (`tenancy.rebind`), so a paid fallback is charged to its budgets and is
 * refused when they are spent.
 */
export async function attemptUpstream(s: RouterState, c: RequestContext): Promise<void> {
  const { cfg, metrics, health, log } = s;
  const api = API[c.kind];
  const profile = c.profile!;
  const body = c.body;
  const wantsStream = api.streams && body.stream === true;
  let withhold = false;
  if (wantsStream && api.injectUsage && cfg.inject_usage && body.stream_options?.include_usage !== true) {
    body.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
    withhold = true;
  }
  const sched: SchedRequest = {
    requestId: c.reqId,
    model: c.servedModel!,
    profile: profile.name,
    sessionKey: cfg.prefix.session_affinity.enabled ? (c.header(cfg.prefix.session_affinity.header) ?? (typeof body.user === 'string' ? body.user : undefined)) : undefined,
    estimatedPromptTokens: c.estimatedPromptTokens,
    maxTokens: c.maxTokens,
    pinnedReplica: pinnedReplica(s, c),
    prompt: s.prefix.promptFor(c.kind, body, c.servedModel!, profile),
  };
  const upstreamHeaders: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': c.reqId };
  // Without a tracing SDK nothing is injected per attempt: the client's own trace context goes on as it came.
  const clientTrace: Record<string, string> = {};
  for (const k of ['traceparent', 'tracestate']) {
    const v = c.header(k);
    if (v) clientTrace[k] = v;
  }

  const tried = new Set<string>();
  let bodyFor = '';
  let upstreamBody: Buffer = Buffer.alloc(0);
  let lastError: LlmgwError | undefined;
  const restrictPool = cfg.admission.mode !== 'off' ? c.lease?.pool : undefined;
  let result: AttemptResult | undefined;
  let attemptStarted = c.started;

  // Moves down the chain to the next model with an endpoint not yet tried; false at its end.
  const nextModel = (): boolean => {
    const next = c.chain.findIndex((m, i) => i > c.chainIdx && s.views(m).some((v) => !v.draining && v.available && !tried.has(v.id)));
    if (next < 0) return false;
    c.chainIdx = next;
    c.servedModel = c.chain[next];
    return true;
  };

  while (c.attempts <= cfg.retries) {
    const model = c.servedModel!;
    if (c.reservation && c.reservation.model !== model && s.tenancy.rebind) {
      try {
        c.reservation = await s.tenancy.rebind(c.reservation, model);
      } catch (e) {
        if (!isLlmgwError(e)) throw e;
        // The key may not pay for this fallback: it is skipped like one without endpoints.
        lastError = e;
        if (!nextModel()) break;
        continue;
      }
    }
    const candidates = s.views(model);
    let pick = schedule(profile, { ...sched, model }, candidates, { random: s.random, exclude: tried, pool: restrictPool, poolSaturated: s.poolSaturated });
    if (pick.kind === 'no_endpoint' && restrictPool !== undefined) pick = schedule(profile, { ...sched, model }, candidates, { random: s.random, exclude: tried, poolSaturated: s.poolSaturated });
    s.prefix.observe(model, profile, pick);
    if (pick.kind === 'no_endpoint') {
      metrics.scheduleFailures.inc({ model, reason: pick.reason });
      if (!nextModel()) break;
      continue;
    }
    metrics.considered.observe({ model }, pick.considered);
    for (const [f, n] of Object.entries(pick.filtered)) if (n > 0) metrics.filtered.inc({ model, filter: f }, n);
    for (const sc of pick.scored) s.lastScores.set(sc.endpoint.id, { total: sc.total, perScorer: sc.perScorer });
    const decision = pick.cacheDecision;
    c.decision = decision;
    metrics.cacheDecision.inc({ model, decision });

    const ep = pick.endpoint;
    c.endpoint = ep.id;
    c.pool = ep.pool;
    tried.add(ep.id);
    const enginePrio = s.enginePriority?.forEndpoint(ep.id, c.band);
    const bodyKey = enginePrio === undefined ? model : `${model}\u0000${enginePrio}`;
    if (bodyFor !== bodyKey) {
      // The client's bytes go out as they came unless the model, stream_options or engine priority must change.
      const prioChanged = s.enginePriority?.apply(body, ep.id, c.band) ?? false;
      if (model === c.requested && !withhold && !prioChanged) upstreamBody = c.buf;
      else {
        body.model = model;
        upstreamBody = Buffer.from(JSON.stringify(body));
      }
      bodyFor = bodyKey;
    }
    c.attempts++;
    attemptStarted = performance.now();
    health.begin(ep.id);
    const queueMs = String(Math.round(c.queueMs ?? 0));
    try {
      // One span per proxy attempt; the engine gets it as its parent in `traceparent`.
      result = await inSpan('router.proxy_attempt', { 'llmgw.endpoint': ep.id, 'llmgw.pool': ep.pool, 'llmgw.model': model, 'llmgw.attempt': c.attempts }, (span) => attempt({
        url: `${ep.url}${api.path}`,
        body: upstreamBody,
        headers: withAuth(withTrace(upstreamHeaders, clientTrace, span), s.engineAuthorization?.(ep.id)),
        stream: wantsStream,
        withholdUsage: withhold,
        agent: s.agent,
        timeouts: { firstToken: cfg.timeouts.first_token, total: cfg.timeouts.total, idle: wantsStream ? cfg.timeouts.idle : 0 },
        clientSignal: c.signal,
        errorEventStyle: c.kind === 'responses' ? 'responses' : 'chat',
        res: c.res,
        responseHeaders: () => ({
          ...c.reservation?.rateLimitHeaders,
          'x-request-id': c.reqId,
          'x-llmgw-replica': ep.id,
          'x-llmgw-pool': ep.pool,
          'x-llmgw-served-model': model,
          'x-llmgw-queue-ms': queueMs,
          'x-llmgw-cache-decision': decision,
        }),
      }));
    } finally {
      health.end(ep.id);
    }
    if (result.endpointFault) health.failure(ep.id);
    else if (result.kind === 'served' || result.kind === 'error') health.success(ep.id);

    if (result.kind === 'retry') {
      lastError = result.error;
      metrics.retries.inc({ model, reason: result.reason });
      c.logger(log).debug({ endpoint: ep.id, reason: result.reason, attempt: c.attempts }, 'upstream attempt failed; retrying elsewhere');
      continue;
    }
    break;
  }

  if (!result || result.kind === 'retry') {
    throw lastError ?? new LlmgwError('LLMGW_ERR_NO_ENDPOINT', `no usable endpoint serves ${c.model}`, { retryAfterSeconds: Math.max(1, cfg.cooldown_seconds) });
  }
  if (result.kind === 'error') throw result.error;
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
      metrics.streamCuts.inc({ model: c.servedModel!, pool: c.pool ?? 'none', reason: result.cut.reason });
      c.logger(log).warn({ model: c.servedModel, endpoint: c.endpoint, reason: result.cut.reason, err: result.cut.error.message }, 'stream cut');
    }
  }
  if (c.servedModel !== c.model) metrics.fallbacks.inc({ model: c.model!, served_model: c.servedModel! });
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

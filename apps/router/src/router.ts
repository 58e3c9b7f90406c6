import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Agent } from 'undici';
import type { ZodType } from 'zod';
import type { Lease } from '@llmgw/admission-core';
import { ConfigError, DEFAULT_BAND_CONFIGS, type RouterConfig } from '@llmgw/config';
import { ChatCompletionRequest, CompletionRequest, EmbeddingRequest, type Principal } from '@llmgw/contracts';
import { RedisEndpointSource, Scraper, StaticEndpointSource, type EndpointSource } from '@llmgw/endpoints';
import type { MappingOverride } from '@llmgw/engine-metrics';
import { isLlmgwError, LlmgwError, toHttpError, type ErrorCode } from '@llmgw/errors';
import { createRegistry, requestIdFrom, type Logger, type Registry } from '@llmgw/observability';
import { buildProfiles, saturatedByLoad, schedule, type EndpointView, type RoutingProfile, type SchedRequest } from '@llmgw/scheduling';
import { isModelAllowed } from '@llmgw/tenancy';
import { createAdmission } from './admission';
import { ModelCatalog } from './catalog';
import { EndpointHealth } from './endpoint-health';
import { createRouterMetrics, type RouterMetrics } from './metrics';
import { attempt, type AttemptResult } from './proxy';
import type { CapturedUsage } from './sse';
import { createTenancy, type TenancyHooks } from './tenancy';

type ApiKind = 'chat' | 'completions' | 'embeddings';

const API: Record<ApiKind, { path: string; schema: ZodType; streams: boolean }> = {
  chat: { path: '/v1/chat/completions', schema: ChatCompletionRequest, streams: true },
  completions: { path: '/v1/completions', schema: CompletionRequest, streams: true },
  embeddings: { path: '/v1/embeddings', schema: EmbeddingRequest, streams: false },
};

/** A tenancy implementation may scope `x-llmgw-replica` pinning to some keys. */
type PinAwareTenancy = TenancyHooks & { allowReplicaPin?(p: Principal): boolean };

export interface RouterDeps {
  log: Logger;
  /** Overrides the endpoint source built from config (tests, `llmgw up`). */
  source?: EndpointSource;
  registry?: Registry;
  /** Uniform [0,1) for pickers (tests). */
  random?: () => number;
}

export interface RouterCore {
  client: FastifyInstance;
  admin: FastifyInstance;
  source: EndpointSource;
  scraper: Scraper;
  health: EndpointHealth;
  registry: Registry;
  close(): Promise<void>;
}

const BREAKER_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/** Builds the router's two fastify apps (client API and admin) around one shared state. */
export async function createRouter(cfg: RouterConfig, deps: RouterDeps): Promise<RouterCore> {
  const log = deps.log;
  const registry = deps.registry ?? createRegistry('router', { defaultMetrics: true });
  const random = deps.random ?? Math.random;
  const profiles = buildProfiles(cfg.profiles as never, undefined, {
    scorerParams: { session: { load_factor: cfg.prefix.session_affinity.load_factor } },
  });
  const bandNames = (cfg.admission.bands ?? DEFAULT_BAND_CONFIGS).map((b) => b.name);
  if (!bandNames.includes(cfg.default_band)) throw new ConfigError('router config', [`default_band: "${cfg.default_band}" is not a band (have: ${bandNames.join(', ')})`]);
  if (!profiles.has(cfg.default_profile)) throw new ConfigError('router config', [`default_profile: "${cfg.default_profile}" is not a routing profile (have: ${[...profiles.keys()].join(', ')})`]);

  const issues: string[] = [];
  for (const m of cfg.models) {
    if (m.routing_profile !== undefined && !profiles.has(m.routing_profile)) issues.push(`models.${m.name}.routing_profile: no profile "${m.routing_profile}"`);
  }
  if (issues.length) throw new ConfigError('router config', issues);

  const source =
    deps.source ??
    (cfg.endpoint_source.kind === 'redis'
      ? await RedisEndpointSource.open({ url: cfg.endpoint_source.redis_url ?? 'redis://127.0.0.1:6379', keyPrefix: cfg.endpoint_source.key_prefix, log })
      : new StaticEndpointSource(cfg.endpoints.map((e) => ({ ...e }))));

  // Stage-1 pool spillover uses admission's thresholds, so both agree on "saturated".
  const poolSaturated = saturatedByLoad({
    targetWaitingPerReplica: cfg.admission.target_waiting_per_replica ?? 4,
    kvCeiling: cfg.admission.kv_ceiling ?? 0.9,
  });
  const lastScores = new Map<string, { total: number; perScorer: Record<string, number> }>();
  const metrics = createRouterMetrics(registry, {
    inflight: () => source.all().map((e) => [e.id, health.inflight(e.id)] as [string, number]),
    scores: () => lastScores.entries(),
    endpointCacheStale: () => Date.now() - source.lastRefreshMs() > cfg.endpoint_cache_max_age,
  });
  const health = new EndpointHealth({
    cooldownMs: cfg.cooldown_seconds * 1000,
    failureThreshold: cfg.breaker.failure_threshold,
    scrapeFailureThreshold: 3,
    baseBackoffMs: cfg.breaker.base_backoff,
    maxBackoffMs: cfg.breaker.max_backoff,
  });
  health.onTransition = (id, from, to) => {
    metrics.breaker.set({ replica: id }, BREAKER_VALUE[to]);
    log[to === 'open' ? 'warn' : 'info']({ endpoint: id, from, to }, 'endpoint breaker');
  };

  const scraped = new Set<string>();
  const scraper = new Scraper({
    source,
    intervalMs: cfg.scrape_interval,
    timeoutMs: cfg.scrape_timeout,
    staleAfterMs: cfg.stale_after,
    overrides: cfg.engine_metrics as Partial<Record<'vllm' | 'sglang' | 'llamacpp', MappingOverride>>,
    log,
    onScrape: (ep, s) => {
      health.scrapeFailures(ep.id, s.consecutiveFailures);
      scraped.add(ep.id);
      metrics.stale.set({ replica: ep.id }, s.stale ? 1 : 0);
    },
  });

  const catalog = new ModelCatalog(cfg, source);
  const admission = createAdmission(cfg, { log, registry, source, scraper });
  const tenancy = createTenancy(cfg, { log, registry }) as PinAwareTenancy;
  const agent = new Agent({
    connections: cfg.upstream_connections,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    connectTimeout: cfg.timeouts.connect,
    // First-token, total and idle limits are enforced per attempt, not by the socket.
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  // Forget what we kept about endpoints that left the source (scores, health, per-replica series).
  const unsubscribe = source.subscribe(() => {
    const live = new Set(source.all().map((e) => e.id));
    for (const id of new Set([...lastScores.keys(), ...health.known(), ...scraped])) {
      if (live.has(id) || health.inflight(id) > 0) continue;
      lastScores.delete(id);
      health.forget(id);
      scraped.delete(id);
      metrics.stale.remove({ replica: id });
      metrics.breaker.remove({ replica: id });
    }
  });

  function views(model: string): EndpointView[] {
    const out: EndpointView[] = [];
    for (const e of source.endpoints(model)) {
      const s = scraper.state(e.id);
      out.push({
        id: e.id,
        url: e.url,
        model: e.model,
        pool: e.pool,
        poolPriority: e.priority,
        engine: e.engine,
        weight: e.weight,
        draining: e.draining,
        stale: s?.stale ?? true,
        available: health.available(e.id),
        stats: s?.stats,
        inflight: health.inflight(e.id),
        drainRate: s?.drainRate,
        batchCapacity: s?.batchCapacity || undefined,
      });
    }
    return out;
  }

  // 'idle': on close, idle keep-alive sockets go at once and running requests may finish (close() bounds the wait).
  const client = Fastify({ logger: false, bodyLimit: cfg.body_limit_bytes, return503OnClosing: false, forceCloseConnections: 'idle' });
  // Requests running per client socket, so that shutdown can drop idle sockets (keep-alive ones, and
  // ones that never sent a request) at once and each busy one as soon as its last response ends.
  const activeBySocket = new Map<Socket, number>();
  let shuttingDown = false;
  client.server.on('connection', (so: Socket) => {
    activeBySocket.set(so, 0);
    so.once('close', () => activeBySocket.delete(so));
  });
  client.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const so = req.socket;
    activeBySocket.set(so, (activeBySocket.get(so) ?? 0) + 1);
    res.once('close', () => {
      const n = (activeBySocket.get(so) ?? 1) - 1;
      if (activeBySocket.has(so)) activeBySocket.set(so, n);
      if (shuttingDown && n === 0) so.destroy();
    });
  });
  client.removeAllContentTypeParsers();
  client.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: cfg.body_limit_bytes }, (_req, body, done) => done(null, body));
  client.setErrorHandler((err: Error & { code?: string; statusCode?: number }, req, reply) => {
    let e: LlmgwError;
    if (isLlmgwError(err)) e = err;
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') e = new LlmgwError('LLMGW_ERR_REQUEST_TOO_LARGE', `request body exceeds ${cfg.body_limit_bytes} bytes`);
    else if (err.statusCode && err.statusCode < 500) e = new LlmgwError('LLMGW_ERR_REQUEST_INVALID', err.message);
    else {
      log.error({ reqId: req.headers['x-request-id'], err }, 'unhandled router error');
      e = new LlmgwError('LLMGW_ERR_INTERNAL', 'internal error');
    }
    const h = toHttpError(e);
    void reply.code(h.status).headers({ ...h.headers, 'x-request-id': requestIdFrom(req.headers['x-request-id']) }).send(h.body);
  });
  const postPaths = new Set(Object.values(API).map((a) => a.path));
  client.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const e =
      postPaths.has(path) || path === '/v1/models'
        ? new LlmgwError('LLMGW_ERR_METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}`)
        : new LlmgwError('LLMGW_ERR_ROUTE_NOT_FOUND', `no route ${req.method} ${path}`);
    const h = toHttpError(e);
    void reply.code(h.status).send(h.body);
  });

  // With auth on, listing models needs a key like every other API call, and a key sees only the
  // models its allowlist lets it use (an alias counts as the model it names).
  async function visibleModels(authorization: string | undefined) {
    const principal = await tenancy.authenticate(authorization);
    const all = catalog.list();
    return principal ? all.filter((m) => isModelAllowed(principal.limits, m.aliasOf ?? m.id)) : all;
  }
  client.get('/v1/models', async (req, reply) => {
    const created = Math.floor(Date.now() / 1000);
    const models = await visibleModels(req.headers.authorization);
    return reply.send({
      object: 'list',
      data: models.map((m) => ({ id: m.id, object: 'model', created, owned_by: 'llmgw', ...(m.aliasOf ? { root: m.aliasOf } : {}) })),
    });
  });
  client.get<{ Params: { id: string } }>('/v1/models/:id', async (req, reply) => {
    const m = (await visibleModels(req.headers.authorization)).find((x) => x.id === req.params.id);
    if (!m) {
      const h = toHttpError(new LlmgwError('LLMGW_ERR_MODEL_NOT_FOUND', `The model \`${req.params.id}\` does not exist.`, { param: 'model' }));
      return reply.code(h.status).send(h.body);
    }
    return reply.send({ id: m.id, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: 'llmgw', ...(m.aliasOf ? { root: m.aliasOf } : {}) });
  });
  for (const kind of Object.keys(API) as ApiKind[]) {
    client.post(API[kind].path, (req, reply) => handle(kind, req, reply));
  }
  tenancy.registerRoutes?.(client);

  function sendError(res: ServerResponse, e: unknown, reqId: string): number {
    const h = toHttpError(e);
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return h.status;
    }
    const body = JSON.stringify(h.body);
    res.writeHead(h.status, { ...h.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-request-id': reqId });
    res.end(body);
    return h.status;
  }

  async function handle(kind: ApiKind, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.hijack();
    const started = performance.now();
    const res = reply.raw;
    const raw = req.raw as IncomingMessage;
    const reqId = requestIdFrom(raw.headers['x-request-id']);
    const ac = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) ac.abort();
    });

    let status = 0;
    let model: string | undefined;
    let servedModel: string | undefined;
    let pool: string | undefined;
    let endpoint: string | undefined;
    let decision = 'none';
    let profileName: string | undefined;
    let queueMs: number | undefined;
    let ttftMs: number | undefined;
    let usage: CapturedUsage | undefined;
    let attempts = 0;
    let lease: Lease | undefined;
    let principal: Principal | undefined;
    let reservation: Awaited<ReturnType<TenancyHooks['reserve']>> | undefined;
    let clientGone = false;

    try {
      principal = await tenancy.authenticate(raw.headers.authorization);

      const buf = req.body as Buffer | undefined;
      if (!buf || buf.length === 0) throw new LlmgwError('LLMGW_ERR_REQUEST_INVALID', 'the request body is empty; send a JSON object');
      let body: Record<string, any>;
      try {
        body = JSON.parse(buf.toString('utf8'));
      } catch (e) {
        throw new LlmgwError('LLMGW_ERR_REQUEST_INVALID_JSON', `the request body is not valid JSON: ${(e as Error).message}`);
      }
      const parsed = API[kind].schema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const param = issue.path.map(String).join('.') || null;
        throw new LlmgwError('LLMGW_ERR_REQUEST_INVALID', param ? `${param}: ${issue.message}` : issue.message, { param });
      }

      const requested: string = body.model;
      model = catalog.resolve(requested);
      if (model === undefined) throw new LlmgwError('LLMGW_ERR_MODEL_NOT_FOUND', `The model \`${requested}\` does not exist.`, { param: 'model' });

      const band = principal ? principal.band : headerOf(raw, 'x-llmgw-band') ?? cfg.default_band;
      if (!bandNames.includes(band)) throw new LlmgwError('LLMGW_ERR_BAND_UNKNOWN', `unknown priority band "${band}" (have: ${bandNames.join(', ')})`);
      profileName = headerOf(raw, 'x-llmgw-profile') ?? principal?.routingProfile ?? catalog.profileOf(model) ?? cfg.default_profile;
      const profile: RoutingProfile | undefined = profiles.get(profileName);
      if (!profile) throw new LlmgwError('LLMGW_ERR_PROFILE_UNKNOWN', `unknown routing profile "${profileName}" (have: ${[...profiles.keys()].join(', ')})`);

      const maxTokens: number | undefined = body.max_tokens ?? body.max_completion_tokens ?? undefined;
      const estimatedPromptTokens = Math.ceil(buf.length / 4);
      const estimatedTokens = estimatedPromptTokens + (maxTokens ?? 0);

      reservation = await tenancy.reserve(principal, model, estimatedTokens);
      model = reservation.model;

      // Fallbacks (plan §7.7): the first model in the chain with a usable endpoint serves.
      const chain = catalog.chain(model);
      // Used to find the serving model and its candidate pools. Scheduling rebuilds the views after
      // admission: other requests granted while this one waited have changed inflight counts, and
      // deciding on the old ones sends a whole granted burst to the same replica.
      let firstViews: EndpointView[] | undefined;
      let chainIdx = chain.findIndex((m) => {
        const vs = views(m);
        if (!vs.some((v) => !v.draining && v.available)) return false;
        firstViews = vs;
        return true;
      });
      if (chainIdx < 0) throw new LlmgwError('LLMGW_ERR_NO_ENDPOINT', `no usable endpoint serves ${model}${chain.length > 1 ? ` or its fallbacks (${chain.slice(1).join(', ')})` : ''}`, { retryAfterSeconds: Math.max(1, cfg.cooldown_seconds) });
      servedModel = chain[chainIdx];

      const usable = firstViews!.filter((v) => !v.draining && v.available);
      const candidatePools = [...new Map(usable.sort((a, b) => b.poolPriority - a.poolPriority).map((v) => [v.pool, v])).keys()];
      const tenant = principal?.projectId ?? headerOf(raw, cfg.tenant_header) ?? 'default';
      const acq = await admission.acquire(
        { requestId: reqId, band, tenant, model: servedModel, candidatePools, estimatedTokens, deadlineMs: Date.now() + cfg.admission.queue_ttl },
        ac.signal,
      );
      queueMs = acq.queuedMs;
      if (acq.kind === 'rejected') {
        if (acq.reason === 'client_gone') {
          clientGone = true;
          throw new LlmgwError('LLMGW_ERR_ADMISSION_CANCELLED', acq.message);
        }
        const code: ErrorCode = acq.reason === 'ttl' ? 'LLMGW_ERR_ADMISSION_TTL' : acq.reason === 'displaced' ? 'LLMGW_ERR_ADMISSION_DISPLACED' : 'LLMGW_ERR_ADMISSION_QUEUE_FULL';
        throw new LlmgwError(code, acq.message, { retryAfterSeconds: acq.retryAfterSeconds ?? (acq.reason === 'ttl' ? undefined : 1) });
      }
      lease = acq.lease;

      const wantsStream = API[kind].streams && body.stream === true;
      let withhold = false;
      if (wantsStream && cfg.inject_usage && body.stream_options?.include_usage !== true) {
        body.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
        withhold = true;
      }
      const pinAllowed = !tenancy.enabled || (principal !== undefined && tenancy.allowReplicaPin?.(principal) === true);
      const sched: SchedRequest = {
        requestId: reqId,
        model: servedModel,
        profile: profile.name,
        sessionKey: cfg.prefix.session_affinity.enabled ? (headerOf(raw, cfg.prefix.session_affinity.header) ?? (typeof body.user === 'string' ? body.user : undefined)) : undefined,
        estimatedPromptTokens,
        maxTokens,
        pinnedReplica: pinAllowed ? headerOf(raw, 'x-llmgw-replica') : undefined,
      };
      const upstreamHeaders: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': reqId };
      const tp = headerOf(raw, 'traceparent');
      if (tp) upstreamHeaders.traceparent = tp;
      const ts = headerOf(raw, 'tracestate');
      if (ts) upstreamHeaders.tracestate = ts;

      const tried = new Set<string>();
      let bodyFor = '';
      let upstreamBody: Buffer = Buffer.alloc(0);
      let lastError: LlmgwError | undefined;
      const restrictPool = cfg.admission.mode !== 'off' ? lease.pool : undefined;
      let result: AttemptResult | undefined;
      let attemptStarted = started;

      while (attempts <= cfg.retries) {
        const candidates = views(servedModel);
        let pick = schedule(profile, { ...sched, model: servedModel }, candidates, { random, exclude: tried, pool: restrictPool, poolSaturated });
        if (pick.kind === 'no_endpoint' && restrictPool !== undefined) pick = schedule(profile, { ...sched, model: servedModel }, candidates, { random, exclude: tried, poolSaturated });
        if (pick.kind === 'no_endpoint') {
          metrics.scheduleFailures.inc({ model: servedModel, reason: pick.reason });
          // Nothing left for this model: move down the fallback chain.
          const next = chain.findIndex((m, i) => i > chainIdx && views(m).some((v) => !v.draining && v.available && !tried.has(v.id)));
          if (next < 0) break;
          chainIdx = next;
          servedModel = chain[next];
          continue;
        }
        metrics.considered.observe({ model: servedModel }, pick.considered);
        for (const [f, n] of Object.entries(pick.filtered)) if (n > 0) metrics.filtered.inc({ model: servedModel, filter: f }, n);
        for (const s of pick.scored) lastScores.set(s.endpoint.id, { total: s.total, perScorer: s.perScorer });
        decision = pick.cacheDecision;
        metrics.cacheDecision.inc({ model: servedModel, decision });

        const ep = pick.endpoint;
        endpoint = ep.id;
        pool = ep.pool;
        tried.add(ep.id);
        if (bodyFor !== servedModel) {
          // The client's bytes go out as they came unless the model or stream_options must change.
          if (servedModel === requested && !withhold) upstreamBody = buf;
          else {
            body.model = servedModel;
            upstreamBody = Buffer.from(JSON.stringify(body));
          }
          bodyFor = servedModel;
        }
        attempts++;
        attemptStarted = performance.now();
        health.begin(ep.id);
        const served = servedModel;
        const epPool = ep.pool;
        try {
          result = await attempt({
            url: `${ep.url}${API[kind].path}`,
            body: upstreamBody,
            headers: upstreamHeaders,
            stream: wantsStream,
            withholdUsage: withhold,
            agent,
            timeouts: { firstToken: cfg.timeouts.first_token, total: cfg.timeouts.total, idle: wantsStream ? cfg.timeouts.idle : 0 },
            clientSignal: ac.signal,
            res,
            responseHeaders: () => ({
              'x-request-id': reqId,
              'x-llmgw-replica': ep.id,
              'x-llmgw-pool': epPool,
              'x-llmgw-served-model': served,
              'x-llmgw-queue-ms': String(Math.round(queueMs ?? 0)),
              'x-llmgw-cache-decision': decision,
            }),
          });
        } finally {
          health.end(ep.id);
        }
        if (result.endpointFault) health.failure(ep.id);
        else if (result.kind === 'served' || result.kind === 'error') health.success(ep.id);

        if (result.kind === 'retry') {
          lastError = result.error;
          metrics.retries.inc({ model: servedModel, reason: result.reason });
          log.debug({ reqId, endpoint: ep.id, reason: result.reason, attempt: attempts }, 'upstream attempt failed; retrying elsewhere');
          continue;
        }
        break;
      }

      if (!result || result.kind === 'retry') {
        throw lastError ?? new LlmgwError('LLMGW_ERR_NO_ENDPOINT', `no usable endpoint serves ${model}`, { retryAfterSeconds: Math.max(1, cfg.cooldown_seconds) });
      }
      if (result.kind === 'error') throw result.error;
      // Time to first token as the client sees it: arrival → first byte of the attempt that served.
      ttftMs = result.ttftMs === undefined ? undefined : attemptStarted - started + result.ttftMs;
      usage = result.usage;
      if (result.kind === 'client_gone') {
        clientGone = true;
        status = 499;
        res.destroy();
      } else {
        status = result.status;
      }
      if (servedModel !== model) metrics.fallbacks.inc({ model, served_model: servedModel });
    } catch (e) {
      if (clientGone || ac.signal.aborted) {
        status = 499;
        clientGone = true;
        res.destroy();
      } else {
        status = sendError(res, e, reqId);
        if (status >= 500) log.warn({ reqId, model, endpoint, err: (e as Error).message }, 'request failed');
      }
    } finally {
      const durationMs = performance.now() - started;
      lease?.release({ status, promptTokens: usage?.promptTokens, completionTokens: usage?.completionTokens });
      if (reservation) tenancy.settle(reservation, usage ? { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, model: servedModel ?? reservation.model } : undefined);
      const labelModel = servedModel ?? model ?? 'unknown';
      const labelPool = pool ?? 'none';
      recordMetrics(metrics, labelModel, labelPool, status, durationMs, ttftMs, usage);
      tenancy.recordUsage({
        requestId: reqId,
        ts: Date.now(),
        keyId: principal?.keyId ?? 'anonymous',
        projectId: principal?.projectId ?? 'anonymous',
        model: model ?? 'unknown',
        servedModel: servedModel ?? model ?? 'unknown',
        pool,
        status,
        promptTokens: usage?.promptTokens ?? 0,
        completionTokens: usage?.completionTokens ?? 0,
        cachedTokens: usage?.cachedTokens ?? 0,
        ttftMs: ttftMs === undefined ? undefined : Math.round(ttftMs),
        durationMs: Math.round(durationMs),
        queueMs,
      });
      log.info(
        {
          reqId,
          model,
          servedModel,
          endpoint,
          pool,
          status,
          profile: profileName,
          decision,
          attempts,
          queueMs,
          ttftMs: ttftMs === undefined ? undefined : round1(ttftMs),
          durationMs: round1(durationMs),
          promptTokens: usage?.promptTokens,
          completionTokens: usage?.completionTokens,
          clientGone: clientGone || undefined,
        },
        'request completed',
      );
    }
  }

  const admin = Fastify({ logger: false, forceCloseConnections: true });
  admin.get('/metrics', async (_req, reply) => reply.header('content-type', registry.contentType).send(await registry.metrics()));
  admin.get('/healthz', async () => ({ status: 'ok' }));
  admin.get('/readyz', async (_req, reply) => {
    const n = source.all().length;
    const ready = n > 0;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'no endpoints', endpoints: n });
  });

  return {
    client,
    admin,
    source,
    scraper,
    health,
    registry,
    async close() {
      // Let running requests finish for up to shutdown_grace, then cut what is left.
      shuttingDown = true;
      for (const [so, n] of activeBySocket) if (n === 0) so.destroy();
      const grace = setTimeout(() => client.server.closeAllConnections(), cfg.shutdown_grace);
      await Promise.allSettled([client.close(), admin.close()]);
      clearTimeout(grace);
      unsubscribe();
      await scraper.close();
      await (admission as { close?(): Promise<void> }).close?.();
      await tenancy.close();
      if (!deps.source) await source.close();
      await agent.close().catch(() => undefined);
    },
  };
}

function headerOf(raw: IncomingMessage, name: string): string | undefined {
  const v = raw.headers[name.toLowerCase()];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

function recordMetrics(m: RouterMetrics, model: string, pool: string, status: number, durationMs: number, ttftMs: number | undefined, usage: CapturedUsage | undefined): void {
  m.requests.inc({ model, pool, status: String(status) });
  m.duration.observe({ model, pool }, durationMs / 1000);
  if (ttftMs !== undefined) m.ttft.observe({ model, pool }, ttftMs / 1000);
  if (usage) {
    m.tokens.inc({ model, direction: 'prompt' }, usage.promptTokens);
    m.tokens.inc({ model, direction: 'completion' }, usage.completionTokens);
  }
}

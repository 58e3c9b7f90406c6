import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Agent, Pool } from 'undici';
import { ConfigError, DEFAULT_BAND_CONFIGS, type RouterConfig } from '@llmgw/config';
import { EngineAuthorizer, readApiKeyFile, readEngineKeyFile, RedisEndpointSource, Scraper, StaticEndpointSource, type EndpointInfo, type EndpointSource } from '@llmgw/endpoints';
import type { MappingOverride } from '@llmgw/engine-metrics';
import { LlmgwError, toHttpError } from '@llmgw/errors';
import { createRegistry, extractTrace, inSpan, requestIdFrom, SpanKind, type Logger, type Registry } from '@llmgw/observability';
import { buildProfiles, createDefaultRegistry, DEFAULT_SATURATION, saturatedByLoad, type EndpointView } from '@llmgw/scheduling';
import { inProcessState } from '@llmgw/stores';
import { isModelAllowed } from '@llmgw/tenancy';
import { EnginePriority } from './admission/engine-priority';
import { createAdmission } from './admission';
import { ModelCatalog } from './catalog';
import { EndpointHealth } from './endpoint-health';
import { clientErrorHandler, installClientHttp } from './http';
import { createRouterMetrics } from './metrics';
import { admit, API, attemptUpstream, authenticate, fail, finish, parse, RequestContext, reserveQuota, resolveModel, type ApiKind, type PinAwareTenancy, type RouterState } from './stages';
import { OnDemand } from './on-demand';
import { createTenancy, type TenancyHooks } from './tenancy';
import { createPrefixRouting } from './prefix';
import type { DependencyMonitor } from '@llmgw/observability';
import type { RedisConnect } from '@llmgw/service';

export interface RouterDeps {
  log: Logger;
  /** Overrides the endpoint source built from config (tests, `llmgw up`). */
  source?: EndpointSource;
  registry?: Registry;
  /** Uniform [0,1) for pickers (tests). */
  random?: () => number;
  /** Overrides the tenancy built from config (tests). */
  tenancy?: TenancyHooks;
  /** Overrides the on-demand catalog view built from a Redis endpoint source (tests). */
  onDemand?: OnDemand;
  /** The service host's `ctx.redis`: every Redis client the config asks for comes from it. */
  redis?: RedisConnect;
  /** The service host's `ctx.dependency`: accounting and admission report their outages to it. */
  dependency?: (name: string, fields?: Record<string, unknown>) => DependencyMonitor;
}

export interface RouterCore {
  /** The client API app; the caller listens it (the service host, or `inject` in tests). */
  client: FastifyInstance;
  source: EndpointSource;
  scraper: Scraper;
  health: EndpointHealth;
  registry: Registry;
  /** What the request stages share (stages/context.ts). */
  state: RouterState;
  /** What /readyz answers (served by the service host's admin app): ready once some endpoint is known. */
  readiness(): { ready: boolean; status: string; endpoints: number };
  /**
   * Shutdown, first half: drops idle client sockets at once, each busy one as
   * soon as its last response ends, and cuts whatever is still open after
   * `shutdown_grace`. The caller then closes the client listener.
   */
  stopAccepting(): void;
  /** Shutdown, second half (after the client listener closed): scraping, admission, tenancy, sources, upstream pools. */
  closeResources(): Promise<void>;
  /** The whole shutdown for a router not run by the host (tests): drain_delay, stopAccepting, client close, closeResources. */
  close(): Promise<void>;
}

const BREAKER_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/** Builds the router's client API app around one shared state (the service host serves its admin endpoints). */
export async function createRouter(cfg: RouterConfig, deps: RouterDeps): Promise<RouterCore> {
  const log = deps.log;
  const registry = deps.registry ?? createRegistry('router', { defaultMetrics: true });
  const random = deps.random ?? Math.random;
  const redis: RedisConnect = deps.redis ?? (async (purpose) => {
    throw new ConfigError('router config', [`${purpose}: a Redis URL is configured but this router was built without the service host's Redis clients (start it with start() or routerService)`]);
  });
  const shareUrl = cfg.prefix.approx_tree.enabled ? cfg.prefix.approx_tree.share.redis_url : undefined;
  // The share connects in the background: no wait, inserts stay local until Redis answers.
  const share = shareUrl
    ? { publisher: await redis('prefix share', shareUrl, { readyWaitMs: 0 }), subscriber: await redis('prefix share subscriber', shareUrl, { kind: 'subscriber', readyWaitMs: 0 }) }
    : undefined;
  const prefix = createPrefixRouting(cfg, { log, registry, share });
  const profiles = buildProfiles(cfg.profiles as never, createDefaultRegistry({ prefixIndex: prefix.index }), {
    scorerParams: { session: { load_factor: cfg.prefix.session_affinity.load_factor }, prefix: prefix.scorerParams },
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
      ? await RedisEndpointSource.open({
          commands: await redis('endpoint source', cfg.endpoint_source.redis_url ?? 'redis://127.0.0.1:6379'),
          subscriber: await redis('endpoint source subscriber', cfg.endpoint_source.redis_url ?? 'redis://127.0.0.1:6379', { kind: 'subscriber' }),
          keyPrefix: cfg.endpoint_source.key_prefix,
          log,
        })
      : cfg.endpoint_source.kind === 'memory'
        ? inProcessState(cfg.endpoint_source.key_prefix).endpoints.source()
        : new StaticEndpointSource(cfg.endpoints.map(({ api_key_file, ...e }) => ({ ...e, ...(api_key_file ? { apiKey: readApiKeyFile(api_key_file) } : {}) }))));

  // What each engine is sent as `authorization` (docs/placement.md, "Engine secrets"): never the client's.
  const engineAuth = new EngineAuthorizer(cfg.engine_key_file ? readEngineKeyFile(cfg.engine_key_file) : undefined, (id) =>
    log.warn({ endpoint: id }, 'endpoint requires its replica secret but the router has no engine_key_file; the engine will refuse it'),
  );
  const infoById = new Map<string, EndpointInfo>();
  const indexEndpoints = () => {
    infoById.clear();
    for (const e of source.all()) infoById.set(e.id, e);
  };
  indexEndpoints();
  const unindex = source.subscribe(indexEndpoints);
  const engineAuthorization = (id: string): string | undefined => {
    const e = infoById.get(id);
    return e ? engineAuth.header(e) : undefined;
  };

  // Stage-1 pool spillover uses admission's thresholds, so both agree on "saturated".
  const poolSaturated = saturatedByLoad({
    targetWaitingPerReplica: cfg.admission.target_waiting_per_replica ?? DEFAULT_SATURATION.targetWaitingPerReplica,
    kvCeiling: cfg.admission.kv_ceiling ?? DEFAULT_SATURATION.kvCeiling,
  });
  const lastScores = new Map<string, { total: number; perScorer: Record<string, number> }>();
  const metrics = createRouterMetrics(registry, {
    inflight: () => source.all().map((e) => [e.id, health.inflight(e.id)] as [string, number]),
    upstreamPools: () => {
      const stats = (agent as Agent & { stats?: Record<string, { queued: number; connected: number; size: number }> }).stats ?? {};
      return source.all().flatMap((e) => {
        const st = stats[originOf(e.url)];
        return st ? [[e.id, { waiting: st.queued, connections: st.connected }] as [string, { waiting: number; connections: number }]] : [];
      });
    },
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
      health.scrapeFailures(ep.id, s.consecutiveFailures, s.unreachable);
      scraped.add(ep.id);
      metrics.stale.set({ replica: ep.id }, s.stale ? 1 : 0);
    },
  });

  prefix.attach(source);
  const onDemand =
    deps.onDemand ??
    (cfg.endpoint_source.kind === 'redis'
      ? await OnDemand.open({
          redis: await redis('on-demand catalog', cfg.endpoint_source.redis_url ?? 'redis://127.0.0.1:6379'),
          sub: await redis('on-demand catalog subscriber', cfg.endpoint_source.redis_url ?? 'redis://127.0.0.1:6379', { kind: 'subscriber' }),
          keyPrefix: cfg.endpoint_source.key_prefix,
          holdMs: cfg.endpoint_source.on_demand_hold,
          subscribe: (cb) => source.subscribe(cb),
          log,
        })
      : cfg.endpoint_source.kind === 'memory'
        ? new OnDemand({ view: inProcessState(cfg.endpoint_source.key_prefix).catalog.reader(), holdMs: cfg.endpoint_source.on_demand_hold, subscribe: (cb) => source.subscribe(cb), log })
        : undefined);
  const catalog = new ModelCatalog(cfg, source, onDemand);
  const admission = createAdmission(cfg, { log, registry, source, scraper, dependency: deps.dependency });
  const tenancyRedis = !deps.tenancy && cfg.tenancy.enabled && cfg.tenancy.redis_url
    ? // Auto-pipelining: the reserve, settle and usage append of every request issued in one event-loop turn go out in one write.
      await redis('tenancy', cfg.tenancy.redis_url, { autoPipelining: true })
    : undefined;
  const tenancy: PinAwareTenancy = deps.tenancy ?? createTenancy(cfg, { log, registry, redis: tenancyRedis, openRedis: (purpose, kind) => redis(purpose, cfg.tenancy.redis_url!, { kind }), dependency: deps.dependency });
  // One connection pool per engine origin, sized per endpoint: upstream_connections_per_endpoint by
  // endpoint name; else, when upstream_connections is set, at least that and at least the engine's
  // declared batch slots (max_num_seqs: every request it can run at once needs its own connection);
  // else unbounded. A pool cap is a FIFO queue that knows no bands and that admission cannot see, so
  // by default there is none: the router holds one upstream connection per request it has in flight
  // to the endpoint (at most its client connections), and admission — on declared or learned slots —
  // is what holds requests back. Requests beyond a cap wait, counted in llmgw_upstream_waiting.
  const connectionsFor = (origin: string): number | null => {
    const floor = cfg.upstream_connections;
    let n = floor ?? 0;
    for (const e of source.all()) {
      if (originOf(e.url) !== origin) continue;
      const pinned = cfg.upstream_connections_per_endpoint[e.id];
      if (pinned !== undefined) return pinned;
      if (e.maxNumSeqs !== undefined) n = Math.max(n, e.maxNumSeqs);
    }
    return floor === undefined ? null : n;
  };
  const agent = new Agent({
    factory: (origin, opts) => new Pool(origin, { ...opts, connections: connectionsFor(String(origin)) }),
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

  const enginePriority = new EnginePriority(cfg.admission.bands ?? DEFAULT_BAND_CONFIGS, source);
  const state: RouterState = { cfg, log, profiles, bandNames, catalog, onDemand, tenancy, admission, enginePriority, engineAuthorization, metrics, health, agent, random, poolSaturated, lastScores, views, prefix };

  // 'idle': on close, idle keep-alive sockets go at once and running requests may finish (close() bounds the wait).
  const client = Fastify({ logger: false, bodyLimit: cfg.body_limit_bytes, return503OnClosing: false, forceCloseConnections: 'idle', clientErrorHandler });
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
  const enabledKinds = (Object.keys(API) as ApiKind[]).filter((k) => !API[k].passthrough || cfg.passthrough_routes.includes(API[k].path as never));
  const disabledPaths = new Map(
    (Object.keys(API) as ApiKind[]).filter((k) => !enabledKinds.includes(k)).map((k) => [API[k].path, `${API[k].path} is not enabled on this gateway (router config passthrough_routes).`] as const),
  );
  installClientHttp(client, {
    bodyLimit: cfg.body_limit_bytes,
    discardLimit: cfg.body_discard_limit_bytes,
    log,
    knownPaths: () => [...enabledKinds.map((k) => API[k].path), '/v1/models'],
    disabledPaths,
    authenticate: (authorization) => tenancy.authenticate(authorization),
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
      if (onDemand && !onDemand.loaded() && !catalog.resolve(req.params.id)) {
        const h = toHttpError(onDemand.notLoaded(req.params.id));
        return reply.code(h.status).headers(h.headers).send(h.body);
      }
      const h = toHttpError(new LlmgwError('LLMGW_ERR_MODEL_NOT_FOUND', `The model \`${req.params.id}\` does not exist.`, { param: 'model' }));
      return reply.code(h.status).send(h.body);
    }
    return reply.send({ id: m.id, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: 'llmgw', ...(m.aliasOf ? { root: m.aliasOf } : {}) });
  });
  for (const kind of enabledKinds) {
    client.post(API[kind].path, (req, reply) => handle(kind, req, reply));
  }
  tenancy.registerRoutes?.(client);

  async function handle(kind: ApiKind, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.hijack();
    const res = reply.raw;
    const c = new RequestContext(kind, requestIdFrom(req.raw.headers['x-request-id']), req.raw as IncomingMessage, res);
    res.on('close', () => {
      if (!res.writableFinished) c.abort.abort();
    });
    // One server span per request, continuing the client's traceparent; each stage is a child span.
    const stage = <T>(name: string, fn: () => T | Promise<T>) => inSpan(`router.${name}`, { 'llmgw.stage': name }, fn);
    await inSpan(`router ${kind}`, { 'http.route': API[kind].path, 'llmgw.request_id': c.reqId }, async (span) => {
      try {
        await stage('authenticate', () => authenticate(state, c));
        await stage('parse', () => parse(state, c, req.body as Buffer | undefined));
        await stage('resolve_model', () => resolveModel(state, c));
        await stage('reserve_quota', () => reserveQuota(state, c));
        await stage('admit', () => admit(state, c));
        await stage('attempt', () => attemptUpstream(state, c));
      } catch (e) {
        fail(state, c, e);
      } finally {
        await stage('finish', () => finish(state, c));
        span.setAttribute('http.response.status_code', c.status);
      }
    }, { kind: SpanKind.SERVER, parent: extractTrace(req.raw.headers) });
  }

  let grace: NodeJS.Timeout | undefined;
  const stopAccepting = () => {
    if (shuttingDown) return;
    shuttingDown = true;
    for (const [so, n] of activeBySocket) if (n === 0) so.destroy();
    grace = setTimeout(() => client.server.closeAllConnections(), cfg.shutdown_grace);
  };
  const closeResources = async () => {
    clearTimeout(grace);
    unsubscribe();
    await scraper.close();
    enginePriority.close();
    unindex();
    await (admission as { close?(): Promise<void> }).close?.();
    await tenancy.close();
    await prefix.close();
    if (!deps.source) await source.close();
    if (!deps.onDemand) await onDemand?.close();
    await agent.close().catch(() => undefined);
  };

  return {
    client,
    source,
    scraper,
    health,
    registry,
    state,
    readiness() {
      const n = source.all().length;
      return { ready: n > 0, status: n > 0 ? 'ready' : 'no endpoints', endpoints: n };
    },
    stopAccepting,
    closeResources,
    async close() {
      if (cfg.drain_delay > 0) await new Promise((r) => setTimeout(r, cfg.drain_delay));
      stopAccepting();
      await client.close().catch(() => undefined);
      await closeResources();
    },
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

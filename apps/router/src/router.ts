import Fastify, { type FastifyInstance } from 'fastify';
import { ConfigError, DEFAULT_BAND_CONFIGS, type RouterConfig } from '@llmgw/config';
import type { EndpointSource, Scraper } from '@llmgw/endpoints';
import { createRegistry, type DependencyMonitor, type Logger, type Registry } from '@llmgw/observability';
import { DEFAULT_SATURATION, saturatedByLoad, type EndpointView } from '@llmgw/scheduling';
import type { RedisConnect } from '@llmgw/service';
import { EnginePriority } from './admission/engine-priority';
import { AdapterRegistry } from './adapters';
import { createAdmission } from './admission';
import { API, enabledKinds } from './api';
import { ModelCatalog } from './catalog';
import type { EndpointHealth } from './endpoint-health';
import { clientErrorHandler, installClientHttp } from './http';
import { createRouterMetrics } from './metrics';
import type { OnDemand } from './on-demand';
import { createPrefixRouting } from './prefix';
import { followCatalogProviders, Providers, withProviderPrices } from './providers';
import { stageConfig, type PinAwareTenancy, type RouterState } from './stages';
import { createTenancy, type TenancyHooks } from './tenancy';
import { ClientSockets } from './wiring/client-sockets';
import { profilesAndBands } from './wiring/config-checks';
import { endpointState } from './wiring/endpoint-state';
import { endpointViews } from './wiring/endpoint-views';
import { registerModelRoutes } from './wiring/models-routes';
import { clientLaneServer, type LaneHandler } from './wiring/client-lane';
import { laneHandler, requestHandler } from './wiring/request-handler';
import { engineAuthorization, openEndpointSource, openOnDemand } from './wiring/sources';
import { upstreamAgent, upstreamPoolStats } from './wiring/upstream-agent';

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
  /** What /readyz answers (served by the service host's admin app): ready once some endpoint (or provider) is known. */
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

/**
 * Builds the router's client API app around one shared state (the service
 * host serves its admin endpoints): the pieces are built in wiring/ and
 * tenancy/, the request path is the stages (stages/index.ts), each request's
 * serving decisions its serving plan (serving/plan.ts).
 */
export async function createRouter(cfg: RouterConfig, deps: RouterDeps): Promise<RouterCore> {
  const log = deps.log;
  const registry = deps.registry ?? createRegistry('router', { defaultMetrics: true });
  const redis: RedisConnect =
    deps.redis ??
    (async (purpose) => {
      throw new ConfigError('router config', [
        `${purpose}: a Redis URL is configured but this router was built without the service host's Redis clients (start it with start() or routerService)`,
      ]);
    });
  const shareUrl = cfg.prefix.approx_tree.enabled ? cfg.prefix.approx_tree.share.redis_url : undefined;
  // The share connects in the background: no wait, inserts stay local until Redis answers.
  const share = shareUrl
    ? {
        publisher: await redis('prefix share', shareUrl, { readyWaitMs: 0 }),
        subscriber: await redis('prefix share subscriber', shareUrl, { kind: 'subscriber', readyWaitMs: 0 }),
      }
    : undefined;
  const prefix = createPrefixRouting(cfg, { log, registry, share });
  const { profiles, bandNames } = profilesAndBands(cfg, prefix);

  const source = deps.source ?? (await openEndpointSource(cfg, redis, log));
  const engineAuth = engineAuthorization(cfg.engine_key_file, source, log);
  // Stage-1 pool spillover uses admission's thresholds, so both agree on "saturated".
  const poolSaturated = saturatedByLoad({
    targetWaitingPerReplica: cfg.admission.target_waiting_per_replica ?? DEFAULT_SATURATION.targetWaitingPerReplica,
    kvCeiling: cfg.admission.kv_ceiling ?? DEFAULT_SATURATION.kvCeiling,
  });
  // The gauges read the endpoint state and the upstream pools when scraped (both built just below).
  const metrics = createRouterMetrics(registry, {
    inflight: () => source.all().map((e) => [e.id, endpoints.health.inflight(e.id)] as [string, number]),
    upstreamPools: () => upstreamPoolStats(agent, source),
    scores: () => endpoints.lastScores.entries(),
    endpointCacheStale: () => Date.now() - source.lastRefreshMs() > cfg.endpoint_cache_max_age,
  });
  const endpoints = endpointState(cfg, source, metrics, log);
  const { health, scraper, lastScores } = endpoints;
  const agent = upstreamAgent(cfg, source);
  const providers = new Providers(cfg, { log, registry, onTransition: endpoints.onBreakerTransition, admitted: cfg.admission.mode !== 'off' });

  prefix.attach(source, () => source.all().map((e) => [e.id, health.inflight(e.id)] as [string, number]));
  const onDemand = deps.onDemand ?? (await openOnDemand(cfg, redis, source, log));
  const catalog = new ModelCatalog(cfg, source, onDemand);
  // Providers from the router's own models, and those the catalog view names (docs/models.md, "Providers"), priced for tenancy.
  const tenancyCfg = withProviderPrices(cfg);
  const catalogProviders =
    onDemand && followCatalogProviders(onDemand, providers, { prices: tenancyCfg.prices, ownPrices: new Set(Object.keys(tenancyCfg.prices)), log });
  const withProviders = providers.size > 0 || onDemand !== undefined;
  const admission = createAdmission(cfg, { log, registry, source, scraper, dependency: deps.dependency, extraPools: () => providers.poolEndpoints() });
  const tenancyRedis =
    !deps.tenancy && cfg.tenancy.enabled && cfg.tenancy.redis_url
      ? // No auto-pipelining: the counters already send each event-loop turn's reserves, and its settles
        // with their usage records, as one script call each (libs/stores/src/batcher.ts); ioredis's
        // auto-pipeline on top of that kept every request alive through young-generation GCs
        // (docs/performance.md, "Why every request outlived its scavenges").
        await redis('tenancy', cfg.tenancy.redis_url)
      : undefined;
  const tenancy: PinAwareTenancy =
    deps.tenancy ??
    createTenancy(withProviders ? { ...cfg, tenancy: tenancyCfg } : cfg, {
      log,
      registry,
      redis: tenancyRedis,
      openRedis: (purpose, kind) => redis(purpose, cfg.tenancy.redis_url!, { kind }),
      dependency: deps.dependency,
    });
  const enginePriority = new EnginePriority(cfg.admission.bands ?? DEFAULT_BAND_CONFIGS, source);
  const state: RouterState = {
    cfg: stageConfig(cfg),
    log,
    profiles,
    bandNames,
    catalog,
    onDemand,
    tenancy,
    admission,
    enginePriority,
    engineAuthorization: (id) => engineAuth.header(id),
    providers: withProviders ? providers : undefined,
    metrics,
    health,
    agent,
    random: deps.random ?? Math.random,
    poolSaturated,
    lastScores,
    views: withProviders
      ? withProviderViews(
          endpointViews(source, scraper, health, (id) => prefix.peerInflight(id)),
          providers,
        )
      : endpointViews(source, scraper, health, (id) => prefix.peerInflight(id)),
    prefix,
    adapters: new AdapterRegistry(agent, log),
  };

  // 'idle': on close, idle keep-alive sockets go at once and running requests may finish (close() bounds the wait).
  // The client API's POST routes are served on the client lane, straight from Node's server (wiring/client-lane.ts).
  const lanes = new Map<string, LaneHandler>();
  const client = Fastify({
    logger: false,
    bodyLimit: cfg.body_limit_bytes,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    clientErrorHandler,
    serverFactory: clientLaneServer(lanes),
  });
  const sockets = new ClientSockets(client, cfg.shutdown_grace);
  const kinds = enabledKinds(cfg.passthrough_routes);
  const disabledPaths = new Map(
    (Object.keys(API) as Array<keyof typeof API>)
      .filter((k) => !kinds.includes(k))
      .map((k) => [API[k].path, `${API[k].path} is not enabled on this gateway (router config passthrough_routes).`] as const),
  );
  installClientHttp(client, {
    bodyLimit: cfg.body_limit_bytes,
    discardLimit: cfg.body_discard_limit_bytes,
    log,
    knownPaths: () => [...kinds.map((k) => API[k].path), '/v1/models'],
    disabledPaths,
    authenticate: (authorization) => tenancy.authenticate(authorization),
  });
  registerModelRoutes(client, { catalog, tenancy, onDemand });
  const bodyLimits = { bodyLimit: cfg.body_limit_bytes, discardLimit: cfg.body_discard_limit_bytes };
  for (const kind of kinds) {
    client.post(API[kind].path, requestHandler(state, kind));
    lanes.set(API[kind].path, laneHandler(state, kind, bodyLimits));
  }
  tenancy.registerRoutes?.(client);

  const closeResources = async () => {
    sockets.close();
    await endpoints.close();
    enginePriority.close();
    engineAuth.close();
    await (admission as { close?(): Promise<void> }).close?.();
    await tenancy.close();
    await prefix.close();
    if (!deps.source) await source.close();
    catalogProviders?.();
    if (!deps.onDemand) await onDemand?.close();
    await agent.close().catch(() => undefined);
    await providers.close();
  };

  return {
    client,
    source,
    scraper,
    health,
    registry,
    state,
    readiness() {
      // A provider is an endpoint too: a router serving only providers is ready at once.
      const n = source.all().length + providers.size;
      return { ready: n > 0, status: n > 0 ? 'ready' : 'no endpoints', endpoints: n };
    },
    stopAccepting: () => sockets.stopAccepting(),
    closeResources,
    async close() {
      if (cfg.drain_delay > 0) await new Promise((r) => setTimeout(r, cfg.drain_delay));
      sockets.stopAccepting();
      await client.close().catch(() => undefined);
      await closeResources();
    },
  };
}

/** The endpoints' views of a model, then its provider's (docs/models.md, "Providers"). */
function withProviderViews(views: (model: string) => EndpointView[], providers: Providers): (model: string) => EndpointView[] {
  return (model) => {
    const own = views(model);
    return providers.forModel(model) ? [...own, ...providers.views(model)] : own;
  };
}

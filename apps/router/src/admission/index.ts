import type { EngineDialect } from '@llmgw/contracts';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Gauge, type Registry } from 'prom-client';
import {
  AdmissionController,
  feedPools,
  scrapedForPools,
  type AcquireResult,
  type Admission,
  type AdmissionRequest,
  type Lease,
  type PoolEndpoint,
} from '@llmgw/admission-core';
import { AdmissionRpcClient, RemoteAdmission, createAdmissionMetrics } from '@llmgw/admission-rpc';
import { toAdmissionCoreConfig, type RouterConfig } from '@llmgw/config';
import { Scraper, StaticEndpointSource, type EndpointSource } from '@llmgw/endpoints';
import type { MappingOverride } from '@llmgw/engine-metrics';
import { clientTls } from '@llmgw/service';
import type { Logger } from '@llmgw/observability';
import { isProviderPool } from '../providers/upstreams';

/** What admission reads of the router configuration (the endpoints only when it scrapes its own). */
export type AdmissionConfig = Pick<RouterConfig, 'admission' | 'endpoints' | 'scrape_interval' | 'scrape_timeout' | 'engine_metrics'>;

/** What the router hands to its admission implementation. */
export interface AdmissionDeps {
  log: Logger;
  /** The router's metric registry (admin port). */
  registry: Registry;
  /**
   * The router's endpoint source and scraper: local admission (and the remote
   * fallback) read pool saturation from them. When absent, admission builds
   * its own from the static endpoints in config (a second scrape loop).
   */
  source?: EndpointSource;
  scraper?: Scraper;
  /**
   * Pools only this router knows (external providers, docs/models.md "Providers"): fed to the
   * in-process controller with their declared slots, and admitted there in remote mode too.
   */
  extraPools?: () => PoolEndpoint[];
  /** KeepAlive key of this router process; default hostname-pid-random. */
  routerId?: string;
  /** The service host's `ctx.dependency`: the admission service's loss and return. */
  dependency?: (name: string, fields?: Record<string, unknown>) => { lost(err: unknown): void; ok(): void };
}

export type RouterAdmission = Admission & {
  readonly mode: 'off' | 'local' | 'remote';
  /** True while remote mode runs on its in-process fallback. */
  readonly degraded: boolean;
  close?(): Promise<void>;
};

/**
 * The router's admission (the admit stage of docs/architecture.md#the-request-path; docs/admission.md):
 * - `off`: pass-through, granted at once, pool = first candidate;
 * - `local`: the in-process admission-core controller, fed with the router's
 *   own scraped stats (single-router deployments);
 * - `remote`: the admission service over gRPC (one queue for all routers); on
 *   UNAVAILABLE or a deadline it falls back to `local`, sets
 *   `llmgw_admission_degraded` to 1 and probes the service until it answers.
 */
export function createAdmission(cfg: AdmissionConfig, deps: AdmissionDeps): RouterAdmission {
  const a = cfg.admission;
  if (a.mode === 'off') return passThrough();
  const addresses = (a.address ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (a.mode === 'remote' && addresses.length === 0) throw new Error('admission.mode is remote but admission.address is empty');
  // Read at boot: a missing file is a startup error, not a request-time one.
  const tls = a.mode === 'remote' ? clientTls(a.tls, 'admission.tls') : undefined;

  const closers: Array<() => Promise<unknown> | unknown> = [];
  const local = new AdmissionController(toAdmissionCoreConfig(a), { recorder: createAdmissionMetrics(deps.registry), log: deps.log });
  closers.push(() => local.close());

  let source = deps.source;
  let scraper = deps.scraper;
  if (!source) {
    const own = new StaticEndpointSource(cfg.endpoints.map((e) => ({ ...e })));
    source = own;
    closers.push(() => own.close());
  }
  if (!scraper) {
    const own = new Scraper({
      source,
      intervalMs: cfg.scrape_interval,
      timeoutMs: cfg.scrape_timeout,
      overrides: cfg.engine_metrics as Partial<Record<EngineDialect, MappingOverride>>,
      log: deps.log,
    });
    scraper = own;
    closers.push(() => own.close());
  }
  // The scraper has no change hook for us, so the feed runs on its own period (twice per scrape).
  const src = source;
  const scr = scraper;
  let fed = new Set<string>();
  const feed = () => {
    const extra = deps.extraPools?.() ?? [];
    fed = feedPools(local, extra.length ? [...src.all(), ...extra] : src.all(), (id) => scrapedForPools(scr.state(id)), fed);
  };
  feed();
  const timer = setInterval(feed, Math.max(50, Math.floor(cfg.scrape_interval / 2)));
  timer.unref();
  closers.push(() => clearInterval(timer));
  closers.push(src.subscribe(feed));

  const closeAll = async () => {
    while (closers.length) await Promise.resolve(closers.pop()!()).catch(() => undefined);
  };

  if (a.mode === 'local') {
    return {
      mode: 'local',
      degraded: false,
      acquire: (req: AdmissionRequest, signal?: AbortSignal) => local.acquire(req, signal),
      close: closeAll,
    };
  }

  const degradedGauge =
    (deps.registry.getSingleMetric('llmgw_admission_degraded') as Gauge | undefined) ??
    new Gauge({
      name: 'llmgw_admission_degraded',
      help: 'Whether the router runs on in-process admission because the admission service is unreachable (1) or uses the service (0).',
      registers: [deps.registry],
    });
  degradedGauge.set(0);
  const remote = new RemoteAdmission({
    client: new AdmissionRpcClient({ addresses, callTimeoutMs: a.call_timeout, tls }),
    local,
    routerId: deps.routerId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    queueTtlMs: a.queue_ttl,
    keepaliveIntervalMs: a.keepalive_interval,
    probeIntervalMs: a.probe_interval,
    creditIntervalMs: a.credit_interval,
    onDegraded: (d) => degradedGauge.set(d ? 1 : 0),
    log: deps.log,
    dependency: deps.dependency?.('admission', { address: addresses.join(','), fallback: 'in-process admission' }),
  });
  remote.start();
  closers.unshift(() => remote.close());
  return {
    mode: 'remote',
    get degraded() {
      return remote.isDegraded;
    },
    // A provider's pool is this router's own: the admission service does not know it.
    acquire: (req: AdmissionRequest, signal?: AbortSignal) => (providerOnly(req) ? local.acquire(req, signal) : remote.acquire(req, signal)),
    grantNow: (req: AdmissionRequest) => (providerOnly(req) ? undefined : remote.grantNow(req)),
    close: closeAll,
  };
}

function providerOnly(req: AdmissionRequest): boolean {
  return req.candidatePools.length > 0 && req.candidatePools.every(isProviderPool);
}

function passThrough(): RouterAdmission {
  let seq = 0;
  return {
    mode: 'off',
    degraded: false,
    async acquire(req: AdmissionRequest): Promise<AcquireResult> {
      const pool = req.candidatePools[0] ?? 'default';
      const lease: Lease = { id: `pass-${++seq}`, pool, release: () => undefined };
      return { kind: 'granted', lease, pool, queuedMs: 0 };
    },
  };
}

import { parseListen, reachableHost } from '@llmgw/cli';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { Gauge } from 'prom-client';
import Redis from 'ioredis';
import { AdmissionController, feedPools } from '@llmgw/admission-core';
import { AdmissionRpcService, admissionServiceDefinition, createAdmissionMetrics } from '@llmgw/admission-rpc';
import { admissionServiceConfigSchema, parseConfig, toAdmissionCoreConfig, type AdmissionServiceConfig, type AdmissionServiceConfigInput } from '@llmgw/config';
import { RedisEndpointSource, Scraper, StaticEndpointSource, type EndpointSource } from '@llmgw/endpoints';
import type { MappingOverride } from '@llmgw/engine-metrics';
import { createServer, listen, shutdown } from '@llmgw/grpc';
import { createLogger, createRegistry, type Logger, logListening } from '@llmgw/observability';
import { LeaderElection, MemoryLeaderLock, RedisLeaderLock, type LeaderLock } from '@llmgw/stores';

export interface StartOptions {
  /** Parsed config, or raw input to parse (defaults filled in). */
  config: AdmissionServiceConfig | AdmissionServiceConfigInput;
  log?: Logger;
  /** Use this endpoint source instead of the one config describes. */
  source?: EndpointSource;
  /** Use this leader lock instead of the one config describes (tests, `llmgw up`). */
  lock?: LeaderLock;
}

export interface RunningAdmission {
  /** The gRPC address, "host:port". */
  url: string;
  /** Admin base URL: /metrics, /healthz, /readyz. */
  adminUrl: string;
  instanceId: string;
  /** True while this instance holds the leader lock and serves Acquire. */
  isLeader(): boolean;
  /** The controller while leader (tests, `ctl top`). */
  controller(): AdmissionController | undefined;
  close(): Promise<void>;
}


/**
 * Starts the admission service: the leader election, the endpoint scraper
 * feeding pool saturation, the gRPC service and the admin listener. A standby
 * (not holding the lock) serves Status, answers UNAVAILABLE to everything else
 * and reports 503 on /readyz, until the leader's lock lapses.
 */
export async function start(opts: StartOptions): Promise<RunningAdmission> {
  const cfg: AdmissionServiceConfig = Object.isFrozen(opts.config) ? (opts.config as AdmissionServiceConfig) : parseConfig(admissionServiceConfigSchema, opts.config, 'admission options');
  const log = opts.log ?? createLogger({ service: 'admission', level: cfg.log_level });
  const instanceId = cfg.instance_id ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const core = toAdmissionCoreConfig(cfg);
  const registry = createRegistry('admission');
  const recorder = createAdmissionMetrics(registry);
  let ctl: AdmissionController | undefined;
  const leaderGauge = new Gauge({ name: 'llmgw_admission_leader', help: '1 while this instance holds the admission leader lock.', registers: [registry] });
  const outstandingGauge = new Gauge({ name: 'llmgw_admission_outstanding_leases', help: 'Leases granted and not yet released.', registers: [registry], collect() { this.set(ctl?.outstandingLeases() ?? 0); } });
  void outstandingGauge;

  const closers: Array<() => Promise<unknown> | unknown> = [];
  const closeAll = async () => {
    while (closers.length) await Promise.resolve(closers.pop()!()).catch((e) => log.warn({ err: e }, 'close step failed'));
  };

  try {
    const source =
      opts.source ??
      (cfg.endpoint_source.kind === 'redis'
        ? await RedisEndpointSource.open({ url: cfg.endpoint_source.redis_url ?? 'redis://127.0.0.1:6379', keyPrefix: cfg.endpoint_source.key_prefix, log })
        : new StaticEndpointSource(cfg.endpoints.map((e) => ({ ...e }))));
    if (!opts.source) closers.push(() => source.close());

    let fed = new Set<string>();
    let feedQueued = false;
    // Many scrapes land together; feeding once per tick is enough.
    const feed = () => {
      if (feedQueued) return;
      feedQueued = true;
      setImmediate(() => {
        feedQueued = false;
        if (ctl) fed = feedPools(ctl, source.all(), (id) => scraper.state(id)?.stats, fed);
      });
    };
    const scraper = new Scraper({
      source,
      intervalMs: cfg.scrape_interval,
      timeoutMs: cfg.scrape_timeout,
      overrides: cfg.engine_metrics as Partial<Record<'vllm' | 'sglang' | 'llamacpp', MappingOverride>>,
      log,
      onScrape: () => feed(),
    });
    closers.push(() => scraper.close());
    const unsubscribe = source.subscribe(feed);
    closers.push(unsubscribe);

    let lock = opts.lock;
    if (!lock) {
      if (cfg.leader.redis_url) {
        const redis = new Redis(cfg.leader.redis_url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
        redis.on('error', (e) => log.debug({ err: e.message }, 'leader lock redis error'));
        closers.push(() => redis.quit().catch(() => redis.disconnect()));
        // Without the offline queue a command before "ready" fails: wait (bounded) so a
        // healthy start elects at once; an unreachable Redis just leaves us standing by.
        await new Promise<void>((res) => {
          const t = setTimeout(res, 2000);
          redis.once('ready', () => (clearTimeout(t), res()));
        });
        lock = new RedisLeaderLock(redis, cfg.leader.key_prefix);
      } else {
        lock = new MemoryLeaderLock();
      }
    }

    const svc = new AdmissionRpcService({ controller: () => ctl, instanceId, fencingToken: () => election.fencingToken, routerTtlMs: cfg.router_ttl, creditTtlMs: cfg.credit_ttl, creditMax: cfg.credit_max, log });
    svc.start();
    closers.push(() => svc.stop());

    const election = new LeaderElection({
      lock,
      name: cfg.leader.name,
      owner: instanceId,
      ttlMs: cfg.leader.lock_ttl,
      onElected: (token) => {
        svc.reset();
        ctl = new AdmissionController(core, { recorder, log });
        fed = new Set();
        feed();
        leaderGauge.set(1);
        log.info({ instanceId, fencingToken: token }, 'elected admission leader');
      },
      onLost: (reason) => {
        ctl?.close();
        ctl = undefined;
        leaderGauge.set(0);
        log.warn({ instanceId, reason }, 'lost admission leadership; standing by');
      },
      onError: (e) => log.debug({ err: (e as Error).message }, 'leader lock error'),
    });

    const server = createServer({ 'grpc.max_concurrent_streams': 100_000 });
    server.addService(admissionServiceDefinition(), svc.implementation());
    const g = parseListen(cfg.listen);
    const tls = cfg.tls
      ? { cert: readFileSync(cfg.tls.cert), key: readFileSync(cfg.tls.key), ...(cfg.tls.client_ca ? { ca: readFileSync(cfg.tls.client_ca), requireClientCert: true } : {}) }
      : undefined;
    const grpcPort = await listen(server, g.host, g.port, { tls });
    closers.push(() => shutdown(server, 2000));

    const admin = adminServer(registry, () => ctl !== undefined, instanceId);
    const a = parseListen(cfg.admin_listen);
    await new Promise<void>((res, rej) => {
      admin.once('error', rej);
      admin.listen(a.port, a.host, () => res());
    });
    closers.push(() => new Promise<void>((res) => admin.close(() => res())));

    await election.start();
    // Stop the election first on close: releasing the lock lets a standby take over at once.
    closers.push(async () => {
      await election.stop();
      ctl?.close();
      ctl = undefined;
    });

    const url = `${reachableHost(g.host)}:${grpcPort}`;
    const adminUrl = `http://${reachableHost(a.host)}:${(admin.address() as AddressInfo).port}`;
    logListening(log, { url: `http://${url}`, urls: { grpc: `http://${url}`, admin: adminUrl }, instanceId, leader: election.isLeader, endpoints: source.all().length });

    let closing: Promise<void> | undefined;
    return {
      url,
      adminUrl,
      instanceId,
      isLeader: () => ctl !== undefined,
      controller: () => ctl,
      close: () => (closing ??= closeAll()),
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

function adminServer(registry: ReturnType<typeof createRegistry>, leader: () => boolean, instanceId: string): HttpServer {
  return createHttpServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics') {
      void registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
      return;
    }
    if (path === '/readyz') {
      const ok = leader();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'leader' : 'standby', instanceId }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
  });
}

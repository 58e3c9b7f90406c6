import { Gauge } from 'prom-client';
import { AdmissionController, feedPools, scrapedForPools } from '@llmgw/admission-core';
import { AdmissionRpcService, ServedPools, admissionServiceDefinition, createAdmissionMetrics } from '@llmgw/admission-rpc';
import { admissionServiceConfigSchema, toAdmissionCoreConfig, type AdmissionServiceConfig, type AdmissionServiceConfigInput } from '@llmgw/config';
import { RedisEndpointSource, Scraper, StaticEndpointSource, type EndpointSource } from '@llmgw/endpoints';
import type { MappingOverride } from '@llmgw/engine-metrics';
import type { AuthorizationTable } from '@llmgw/grpc';
import type { Logger } from '@llmgw/observability';
import { defineService, startService } from '@llmgw/service';
import { inProcessState, type LeaderLock } from '@llmgw/stores';
import { type EngineDialect } from '@llmgw/contracts';

/**
 * Who may call admission (docs/security.md): routers; operators may read
 * Status; health is open to any certificate.
 */
export const ADMISSION_AUTHORIZATION: AuthorizationTable = {
  'llmgw.admission.v1.Admission': ['router'],
  'llmgw.admission.v1.Admission/Status': ['router', 'operator', 'portal', 'placement-scheduler'],
};

/** Longest a shutdown waits for open Acquire streams before cutting them (ms). */
const DRAIN_DEADLINE_MS = 2000;

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

/** What a started admission hands back through the host (`RunningService.service`). */
export interface AdmissionHandle {
  /** The gRPC address, "host:port". */
  url: string;
  isLeader(): boolean;
  controller(): AdmissionController | undefined;
}

/**
 * The admission service on the service host: the leader election, the
 * endpoint scraper feeding pool saturation and the gRPC service; the host
 * serves /metrics, /healthz and /readyz. A standby (not holding the lock)
 * serves Status, answers UNAVAILABLE to everything else and reports 503 on
 * /readyz, until the leader's lock lapses.
 */
export function admissionService(opts: { source?: EndpointSource; lock?: LeaderLock } = {}) {
  return defineService({
    name: 'admission',
    schema: admissionServiceConfigSchema,
    settings: (c) => ({ ...c, drain_deadline: DRAIN_DEADLINE_MS }),
    async start(ctx): Promise<AdmissionHandle> {
      const cfg: AdmissionServiceConfig = ctx.config;
      const log = ctx.log;
      const registry = ctx.registry;
      const instanceId = ctx.instanceId;
      const core = toAdmissionCoreConfig(cfg);
      const recorder = createAdmissionMetrics(registry);
      let ctl: AdmissionController | undefined;
      const leaderGauge = new Gauge({ name: 'llmgw_admission_leader', help: '1 while this instance holds the admission leader lock.', registers: [registry] });
      new Gauge({
        name: 'llmgw_admission_outstanding_leases',
        help: 'Leases granted and not yet released.',
        registers: [registry],
        collect() {
          this.set(ctl?.outstandingLeases() ?? 0);
        },
      });

      const source =
        opts.source ??
        (cfg.endpoint_source.kind === 'redis'
          ? await RedisEndpointSource.open({
              commands: await ctx.redis('endpoint source', cfg.endpoint_source.redis_url ?? 'redis://127.0.0.1:6379'),
              subscriber: await ctx.redis('endpoint source subscriber', cfg.endpoint_source.redis_url ?? 'redis://127.0.0.1:6379', { kind: 'subscriber' }),
              keyPrefix: cfg.endpoint_source.key_prefix,
              log,
            })
          : cfg.endpoint_source.kind === 'memory'
            ? inProcessState(cfg.endpoint_source.key_prefix).endpoints.source()
            : new StaticEndpointSource(cfg.endpoints.map((e) => ({ ...e }))));
      if (!opts.source) ctx.onClose('endpoint source', () => source.close());

      // Slots learned from the engines' metrics, for endpoints that declare no max_num_seqs
      // (docs/admission.md, "Learned slots"): one series per such endpoint, 0 until learned.
      new Gauge({
        name: 'llmgw_admission_learned_slots',
        help: "Batch slots admission uses for an endpoint that declares no max_num_seqs: learned from its engine metrics, or its pool peers' until then (0 while unknown).",
        labelNames: ['endpoint'],
        registers: [registry],
        collect() {
          this.reset();
          for (const r of ctl?.replicaSlots() ?? []) if (r.declared === undefined) this.set({ endpoint: r.id }, r.confirmed ? r.capacity : 0);
        },
      });
      const learnedLogged = new Map<string, number>();
      const logLearned = (c: AdmissionController) => {
        for (const r of c.replicaSlots()) {
          if (r.learned === undefined || learnedLogged.get(r.id) === r.learned) continue;
          log.info({ endpoint: r.id, pool: r.pool, slots: r.learned, previous: learnedLogged.get(r.id) ?? null }, 'admission learned endpoint slots');
          learnedLogged.set(r.id, r.learned);
        }
      };

      let fed = new Set<string>();
      const served = new ServedPools();
      let feedQueued = false;
      // Many scrapes land together; feeding once per tick is enough.
      const feed = () => {
        if (feedQueued) return;
        feedQueued = true;
        setImmediate(() => {
          feedQueued = false;
          if (!ctl) return;
          const all = source.all();
          // Only a list read from the store says what is not served (before the first read, nothing is refused).
          if (source.lastRefreshMs() > 0) served.update(all);
          fed = feedPools(ctl, all, (id) => scrapedForPools(scraper.state(id)), fed);
          logLearned(ctl);
        });
      };
      const scraper = new Scraper({
        source,
        intervalMs: cfg.scrape_interval,
        timeoutMs: cfg.scrape_timeout,
        overrides: cfg.engine_metrics as Partial<Record<EngineDialect, MappingOverride>>,
        log,
        onScrape: () => feed(),
      });
      ctx.onClose('scraper', () => scraper.close());
      const unsubscribe = source.subscribe(feed);
      ctx.onClose('endpoint subscription', unsubscribe);

      const svc = new AdmissionRpcService({
        controller: () => ctl,
        instanceId,
        fencingToken: () => election.fencingToken,
        routerTtlMs: cfg.router_ttl,
        creditTtlMs: cfg.credit_ttl,
        creditMax: cfg.credit_max,
        log,
        served,
      });
      svc.start();
      ctx.onClose('rpc service', () => svc.stop());

      // The lock: the one given (tests, `llmgw up`), else in Redis when leader.redis_url is set, else in this process.
      const election = await ctx.leader(cfg.leader.name, {
        lock: opts.lock,
        redisUrl: cfg.leader.redis_url,
        keyPrefix: cfg.leader.key_prefix,
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
      });

      const { address: url } = await ctx.grpcServer('grpc', {
        address: cfg.listen,
        tls: cfg.tls,
        insecure: cfg.insecure,
        authorize: ADMISSION_AUTHORIZATION,
        services: [{ definition: admissionServiceDefinition(), implementation: svc.implementation() as never }],
        options: { 'grpc.max_concurrent_streams': 100_000 },
        maxReceiveMessageBytes: cfg.max_message_bytes,
      });

      await election.start();
      // Stop the election first on close: releasing the lock lets a standby take over at once.
      ctx.onClose('leader election', async () => {
        await election.stop();
        ctl?.close();
        ctl = undefined;
      });
      ctx.readiness(() => ({ ready: ctl !== undefined, status: ctl ? 'leader' : 'standby', instanceId }));
      ctx.describe({ instanceId, leader: election.isLeader, endpoints: source.all().length });
      return { url, isLeader: () => ctl !== undefined, controller: () => ctl };
    },
  });
}

/** Starts admission through the service host (tests, `llmgw up`). */
export async function start(opts: StartOptions): Promise<RunningAdmission> {
  const running = await startService(admissionService({ source: opts.source, lock: opts.lock }), {
    config: opts.config,
    log: opts.log,
    configSource: 'admission options',
  });
  return { ...running.service, adminUrl: running.adminUrl!, instanceId: running.instanceId, close: () => running.close() };
}

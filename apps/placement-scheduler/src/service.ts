import { loadCatalogFile, placementSchedulerConfigSchema, type PlacementSchedulerConfig } from '@llmgw/config';
import { AccountingClient } from '@llmgw/accounting-rpc';
import { AdmissionRpcClient } from '@llmgw/admission-rpc';
import {
  AccountingAuditSink,
  controlModelHandlers,
  controlQuotaHandlers,
  QuotaAdmin,
  logOnlyAuditSink,
  controlNodeHandlers,
  controlServiceDefinition,
  InventoryNodeAdmin,
  ModelAdmin,
} from '@llmgw/control-rpc';
import { deriveEngineSecret, readEngineKeyFile } from '@llmgw/endpoints';
import type { AuthorizationTable } from '@llmgw/grpc';
import { InventoryClient } from '@llmgw/inventory-rpc';
import { defineService, startService, type ClientTlsFiles, type StartServiceOptions } from '@llmgw/service';
import { inProcessState, type LeaderElection } from '@llmgw/stores';
import { InventoryFleetSource, InventoryShardSink } from './inventory-port';
import { RedisCatalogView, RedisEndpointPublisher, RedisTargetStore } from './redis-state';
import { policyConfigOf } from './policy-config';
import { MemoryQuotaStore, RedisQuotaStore } from './quota-store';
import { MemoryAppliedCapacityStore, RedisAppliedCapacityStore } from './applied-store';
import { PlacementScheduler } from './scheduler';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';
import { Autoscaler } from './autoscaler';
import { AutoscaleLoop } from './autoscale-loop';
import { CapacityStaleCheck } from './capacity-stale';

export interface PlacementSchedulerHandle {
  scheduler: PlacementScheduler;
  election: LeaderElection;
  /** Where the autoscaler reads admission, for a process that starts admission after the scheduler (`llmgw up`). */
  attachAdmission(address: string, tls?: ClientTlsFiles): void;
  autoscaler: Autoscaler;
  /** llmgw_capacity_profile_stale (when accounting is configured). */
  staleCheck?: CapacityStaleCheck;
}

/** Who may call the ControlService port (docs/security.md): operators (ctl) and the portal; health is open. */
export const SCHEDULER_AUTHORIZATION: AuthorizationTable = {
  'llmgw.control.v1.ControlService': ['operator', 'portal'],
};

/** `llmgw placement-scheduler` as a service on the host (libs/service). */
export const placementSchedulerService = defineService({
  name: 'placement-scheduler',
  schema: placementSchedulerConfigSchema,
  settings: (c: PlacementSchedulerConfig) => ({ log_level: c.log_level, admin_listen: c.admin_listen, instance_id: c.instance_id }),
  async start(ctx): Promise<PlacementSchedulerHandle> {
    const cfg = ctx.config;
    const log = ctx.log;
    const catalog = loadCatalogFile(cfg.catalog);
    const engineKey = cfg.engine_key_file ? readEngineKeyFile(cfg.engine_key_file) : undefined;
    if (!engineKey) log.warn({}, 'no engine_key_file: placed engines run without an API key, open to anyone who can reach their node');
    const prefix = cfg.redis?.key_prefix ?? DEFAULT_REDIS_KEY_PREFIX;
    // `memory`: the state in this process, shared with the routers and admission of the same process.
    const mem = cfg.memory ? inProcessState(cfg.memory.key_prefix) : undefined;
    // Commands fail fast while Redis is away; the lock and the demand channel retry on their own.
    const redis = cfg.redis ? await ctx.redis('scheduler state', cfg.redis.url, { readyWaitMs: cfg.lock_ttl }) : undefined;
    const sub = cfg.redis ? await ctx.redis('demand channel', cfg.redis.url, { kind: 'subscriber', readyWaitMs: cfg.lock_ttl }) : undefined;
    const invTls = ctx.clientTls(cfg.inventory.tls, 'inventory.tls');
    const inventory = new InventoryClient({
      address: cfg.inventory.address,
      tls: invTls,
      dependency: ctx.dependency('inventory', { address: cfg.inventory.address }),
    });
    // Operator actions go to accounting's audit log (AuditLog) when it is configured; always to this log.
    const acctTls = ctx.clientTls(cfg.accounting?.tls, 'accounting.tls');
    const accounting = cfg.accounting
      ? new AccountingClient({ address: cfg.accounting.address, tls: acctTls, dependency: ctx.dependency('accounting', { address: cfg.accounting.address }) })
      : undefined;
    const audit = accounting ? new AccountingAuditSink({ client: accounting, log }) : logOnlyAuditSink(log);
    if (!accounting) log.warn({}, 'no accounting address: operator actions (cordon, drain, model targets) are recorded in this log only, not in the audit log');

    const election: LeaderElection = await ctx.leader('placement-scheduler', {
      redisUrl: cfg.redis?.url,
      keyPrefix: prefix,
      ...(mem ? { lock: mem.lock } : {}),
      ttlMs: cfg.lock_ttl,
      onElected: (token) => {
        log.info({ token }, 'elected leader; reconciling');
        scheduler.soon();
      },
      onLost: (reason) => log.warn({ reason }, 'leadership lost; standing by'),
    });
    const fleet = new InventoryFleetSource(inventory, log);
    const catalogView = redis ? new RedisCatalogView(redis, prefix, sub) : mem?.catalog;
    // Always built: `llmgw up` attaches admission after it starts (attachAdmission); without admission it holds every count.
    const autoscaler = new Autoscaler({
      windowMs: cfg.autoscaler.window,
      upCooldownMs: cfg.autoscaler.up_cooldown,
      downCooldownMs: cfg.autoscaler.down_cooldown,
      quietPeriodMs: cfg.autoscaler.quiet_period,
    });
    const scheduler = new PlacementScheduler({
      autoscaler,
      catalog,
      fleet,
      sink: new InventoryShardSink(inventory),
      publisher: redis
        ? new RedisEndpointPublisher(redis, prefix)
        : mem
          ? { publish: (list) => mem.endpoints.replace(list) }
          : { publish: async () => undefined },
      leadership: election,
      log,
      registry: ctx.registry,
      catalogView,
      targets: redis ? new RedisTargetStore(redis, prefix) : mem?.targets,
      quotas: redis ? new RedisQuotaStore(redis, prefix) : new MemoryQuotaStore(),
      applied: redis ? new RedisAppliedCapacityStore(redis, prefix) : new MemoryAppliedCapacityStore(),
      intervalMs: cfg.reconcile_interval,
      reconciler: {
        drainTimeoutMs: cfg.drain_timeout,
        reportGraceMs: cfg.report_grace,
        backoffBaseMs: cfg.backoff.base,
        backoffMaxMs: cfg.backoff.max,
        portRange: cfg.port_range,
        policy: policyConfigOf(catalog, cfg),
        ...(engineKey ? { engineSecret: (replicaId: string) => deriveEngineSecret(engineKey, replicaId) } : {}),
      },
    });
    fleet.onChange(() => scheduler.soon());
    let admission: AdmissionRpcClient | undefined;
    let autoscale: AutoscaleLoop | undefined;
    /** Starts the autoscaler's reads of admission (docs/capacity.md); once. */
    const attachAdmission = (address: string, tlsFiles?: ClientTlsFiles) => {
      const tls = ctx.clientTls(tlsFiles, 'admission.tls');
      if (autoscale) return;
      const client = new AdmissionRpcClient({ addresses: address.split(',').map((a) => a.trim()), tls });
      admission = client;
      autoscale = new AutoscaleLoop({
        autoscaler,
        catalog,
        reconciler: () => scheduler.reconciler,
        admissionStatus: async () => ((await client.findServing()) === undefined ? undefined : client.status()),
        leader: () => election.fencingToken !== undefined,
        engineLoad: (id) => fleet.engineLoad(id),
        reconcileSoon: () => scheduler.soon(),
        log,
        registry: ctx.registry,
        intervalMs: cfg.autoscaler.interval,
      });
      autoscale.start();
      log.info({ admission: address }, 'autoscaler reads admission');
    };
    // Stored capacity profiles against the engines running (needs accounting, where they are kept).
    const staleCheck = accounting
      ? new CapacityStaleCheck({
          list: () => accounting.capacity('ListCapacityProfiles', { model: '' }),
          nodes: () => fleet.nodes(),
          leader: () => election.fencingToken !== undefined,
          log,
          registry: ctx.registry,
          intervalMs: cfg.capacity_check_interval,
        })
      : undefined;
    const stopDemand = catalogView
      ? await catalogView
          .onUrgentDemand((model) => {
            scheduler.noteDemand(model);
            scheduler.soon();
          })
          .catch((e) => (log.warn({ err: (e as Error).message }, 'demand channel: subscribe failed; demand is read every pass'), undefined))
      : undefined;

    const { address: listen } = await ctx.grpcServer('control', {
      address: cfg.listen,
      tls: cfg.tls,
      insecure: cfg.insecure,
      authorize: SCHEDULER_AUTHORIZATION,
      maxReceiveMessageBytes: cfg.max_message_bytes,
      services: [
        {
          definition: controlServiceDefinition(),
          implementation: {
            ...controlNodeHandlers(new InventoryNodeAdmin(inventory), { log, audit }),
            ...controlModelHandlers(new ModelAdmin(catalog, scheduler), { log, audit }),
            ...controlQuotaHandlers(new QuotaAdmin(scheduler), { log, audit }),
          } as never,
        },
      ],
    });
    ctx.onClose('scheduler', async () => {
      stopDemand?.();
      autoscale?.close();
      staleCheck?.close();
      admission?.close();
      scheduler.close();
      await election.stop();
      inventory.close();
      await Promise.race([audit.flushed?.(), new Promise((r) => setTimeout(r, 2000).unref())]);
      audit.close?.();
      accounting?.close();
    });
    await election.start();
    await scheduler.start();
    staleCheck?.start();
    if (cfg.admission) attachAdmission(cfg.admission.address, cfg.admission.tls);
    ctx.readiness(() => (fleet.synced() ? true : { ready: false, status: 'waiting for the fleet snapshot from inventory' }));
    ctx.describe({
      control: listen,
      inventory: cfg.inventory.address,
      audit: cfg.accounting?.address ?? 'log only',
      catalog: cfg.catalog,
      models: catalog.models.length,
      autoscaler: cfg.admission ? `admission ${cfg.admission.address}` : 'off until admission is attached',
      redis: !!redis,
      ...(mem ? { state: 'in-process' } : {}),
    });
    return { scheduler, election, attachAdmission, autoscaler, staleCheck };
  },
});

/** Starts the placement-scheduler (tests, `llmgw up`, main). */
export function start(opts: StartServiceOptions) {
  return startService(placementSchedulerService, opts);
}

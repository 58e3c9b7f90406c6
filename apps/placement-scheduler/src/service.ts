import { loadCatalogFile, placementSchedulerConfigSchema, type PlacementSchedulerConfig } from '@llmgw/config';
import { createServer } from '@llmgw/grpc';
import { ControlClient, controlNodeHandlers, controlServiceDefinition, InventoryClient, RemoteNodeAdmin } from '@llmgw/inventory-rpc';
import { defineService, startService, type StartServiceOptions } from '@llmgw/service';
import type { LeaderElection } from '@llmgw/stores';
import { controlModelHandlers, ModelAdmin } from './control-models';
import { InventoryFleetSource, InventoryShardSink } from './inventory-port';
import { RedisCatalogView, RedisEndpointPublisher, RedisTargetStore } from './redis-state';
import { PlacementScheduler } from './scheduler';

export interface PlacementSchedulerHandle {
  scheduler: PlacementScheduler;
  election: LeaderElection;
}

/** `llmgw placement-scheduler` as a service on the host (libs/service). */
export const placementSchedulerService = defineService({
  name: 'placement-scheduler',
  schema: placementSchedulerConfigSchema,
  settings: (c: PlacementSchedulerConfig) => ({ log_level: c.log_level, admin_listen: c.admin_listen, instance_id: c.instance_id }),
  async start(ctx): Promise<PlacementSchedulerHandle> {
    const cfg = ctx.config;
    const log = ctx.log;
    const catalog = loadCatalogFile(cfg.catalog);
    const prefix = cfg.redis?.key_prefix ?? 'llmgw:';
    // Commands fail fast while Redis is away; the lock and the demand channel retry on their own.
    const redis = cfg.redis ? await ctx.redis('scheduler state', cfg.redis.url, { readyWaitMs: cfg.lock_ttl }) : undefined;
    const sub = cfg.redis ? await ctx.redis('demand channel', cfg.redis.url, { kind: 'subscriber', readyWaitMs: cfg.lock_ttl }) : undefined;
    const invTls = cfg.inventory.tls ? { ca: cfg.inventory.tls.ca, cert: cfg.inventory.tls.cert, key: cfg.inventory.tls.key, serverName: cfg.inventory.tls.server_name } : undefined;
    const inventory = new InventoryClient({ address: cfg.inventory.address, tls: invTls, dependency: ctx.dependency('inventory', { address: cfg.inventory.address }) });
    const control = new ControlClient({ address: cfg.inventory.address, tls: invTls });

    const election: LeaderElection = await ctx.leader('placement-scheduler', {
      redisUrl: cfg.redis?.url,
      keyPrefix: prefix,
      ttlMs: cfg.lock_ttl,
      onElected: (token) => {
        log.info({ token }, 'elected leader; reconciling');
        scheduler.soon();
      },
      onLost: (reason) => log.warn({ reason }, 'leadership lost; standing by'),
    });
    const fleet = new InventoryFleetSource(inventory, log);
    const catalogView = redis ? new RedisCatalogView(redis, prefix) : undefined;
    const scheduler = new PlacementScheduler({
      catalog,
      fleet,
      sink: new InventoryShardSink(inventory),
      publisher: redis ? new RedisEndpointPublisher(redis, prefix) : { publish: async () => undefined },
      leadership: election,
      log,
      registry: ctx.registry,
      catalogView,
      targets: redis ? new RedisTargetStore(redis, prefix) : undefined,
      intervalMs: cfg.reconcile_interval,
      reconciler: {
        drainTimeoutMs: cfg.drain_timeout,
        reportGraceMs: cfg.report_grace,
        backoffBaseMs: cfg.backoff.base,
        backoffMaxMs: cfg.backoff.max,
        portRange: cfg.port_range,
      },
    });
    fleet.onChange(() => scheduler.soon());
    if (sub && catalogView) {
      // While Redis is away the SUBSCRIBE waits for it; meanwhile demand is read every pass.
      const subscribed = sub.subscribe(catalogView.demandChannel).catch((e) => log.warn({ err: (e as Error).message }, 'demand channel: subscribe failed; demand is read every pass'));
      if (sub.status === 'ready') await subscribed;
      sub.on('message', (_ch: string, model: string) => {
        scheduler.noteDemand(model);
        scheduler.soon();
      });
    }

    const server = createServer();
    server.addService(controlServiceDefinition(), {
      ...controlNodeHandlers(new RemoteNodeAdmin(control), { log }),
      ...controlModelHandlers(new ModelAdmin(catalog, scheduler), { log }),
    });
    const listen = await ctx.listenGrpc('control', server, cfg.listen, cfg.tls);
    ctx.onClose('scheduler', async () => {
      scheduler.close();
      await election.stop();
      inventory.close();
      control.close();
    });
    await election.start();
    await scheduler.start();
    ctx.readiness(() => (fleet.synced() ? true : { ready: false, status: 'waiting for the fleet snapshot from inventory' }));
    ctx.describe({ control: listen, inventory: cfg.inventory.address, catalog: cfg.catalog, models: catalog.models.length, redis: !!redis });
    return { scheduler, election };
  },
});

/** Starts the placement-scheduler (tests, `llmgw up`, main). */
export function start(opts: StartServiceOptions) {
  return startService(placementSchedulerService, opts);
}

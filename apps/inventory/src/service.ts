import { agentServiceDefinition } from '@llmgw/agent-rpc';
import type { agentV1 } from '@llmgw/contracts';
import { inventoryConfigSchema, type InventoryConfig, type InventoryConfigInput } from '@llmgw/config';
import { HealthService, createServer } from '@llmgw/grpc';
import { controlNodeHandlers, controlServiceDefinition, inventoryServiceDefinition, inventoryServiceHandlers } from '@llmgw/inventory-rpc';
import type { Logger, Registry } from '@llmgw/observability';
import { defineService, startService, type ServiceContext } from '@llmgw/service';
import { RedisPeers } from './cluster';
import { EngineStatsPublisher } from './engine-stats';
import { MemoryFence, RedisFence, type FenceStore } from './fence';
import { MemoryFleetStore, type FleetStore } from './fleet-store';
import { RedisFleetStore } from './fleet-store-redis';
import { MemoryIntentStore, RedisIntentStore, type IntentStore } from './intent-store';
import { Inventory, nodeAdmin } from './inventory';
import { createInventoryMetrics } from './metrics';

/** What a started inventory hands back (tests, `llmgw up`). */
export interface InventoryHandle {
  /** Fleet-facing gRPC address (AgentService), "host:port". */
  agentAddress: string;
  /** Internal gRPC address (InventoryService, ControlService node half), "host:port". */
  address: string;
  inventory: Inventory;
}

interface Stores {
  store: FleetStore;
  intents: IntentStore;
  fence: FenceStore;
  peers?: RedisPeers;
  publisher?: EngineStatsPublisher;
}

/** The in-process stores, or the Redis-shared ones (each with its close step). */
async function openStores(ctx: ServiceContext<InventoryConfig>, clock?: () => number): Promise<Stores> {
  const cfg = ctx.config;
  const log = ctx.log;
  if (!cfg.redis) return { store: new MemoryFleetStore({ historySize: cfg.watch_history, clock }), intents: new MemoryIntentStore(), fence: new MemoryFence() };
  // Commands wait through a reconnect; blocking stream reads and the subscriber need connections of their own.
  const redis = await ctx.redis('fleet store', cfg.redis.url, { kind: 'queued' });
  const reader = await ctx.redis('fleet store reader', cfg.redis.url, { kind: 'blocking' });
  const sub = await ctx.redis('peers', cfg.redis.url, { kind: 'subscriber' });
  const store = await RedisFleetStore.open({ redis, reader, keyPrefix: cfg.redis.key_prefix, historySize: cfg.watch_history, clock, log });
  ctx.onClose('fleet store', () => store.close());
  const peers = new RedisPeers({ redis, sub, keyPrefix: cfg.redis.key_prefix, instanceId: ctx.instanceId, instanceTtlMs: cfg.redis.instance_ttl, log, clock });
  ctx.onClose('peers', () => peers.close());
  let publisher: EngineStatsPublisher | undefined;
  if (cfg.engine_stats.enabled) {
    publisher = new EngineStatsPublisher({ redis, keyPrefix: cfg.redis.key_prefix, ttlMs: cfg.engine_stats.ttl, log, clock });
    ctx.onClose('engine stats', () => publisher!.close());
  }
  return { store, intents: new RedisIntentStore(redis, cfg.redis.key_prefix), fence: new RedisFence(redis, cfg.redis.key_prefix), peers, publisher };
}

/**
 * The inventory service (plan §5.6, §6.5) on the service host: the fleet
 * store (in-process, or shared through Redis), the internal port
 * (InventoryService + ControlService node half), the fleet-facing
 * AgentService port (mTLS, CN = node id), the liveness sweep and engine
 * stats publication. On shutdown agents and watchers are told to go
 * elsewhere before the listeners stop.
 */
export function inventoryService(opts: { clock?: () => number } = {}) {
  return defineService({
    name: 'inventory',
    schema: inventoryConfigSchema,
    settings: (c) => c,
    async start(ctx): Promise<InventoryHandle> {
      const cfg = ctx.config;
      const s = await openStores(ctx, opts.clock);
      const ref: { inv?: Inventory } = {};
      const metrics = createInventoryMetrics(ctx.registry, () => ref.inv?.nodes() ?? [], () => ref.inv?.watcherCount() ?? 0);
      const inventory = new Inventory({
        instanceId: ctx.instanceId,
        store: s.store,
        intents: s.intents,
        fence: s.fence,
        log: ctx.log,
        metrics,
        peers: s.peers,
        onLocalStats: s.publisher ? (n, st) => s.publisher!.add(n, st) : undefined,
        clock: opts.clock,
        requirePeerCert: !!cfg.agent_tls?.client_ca,
        missedHeartbeats: cfg.missed_heartbeats,
        lostAfterMs: cfg.lost_after,
        forgetAfterMs: cfg.forget_after,
        commandTimeoutMs: cfg.command_timeout,
        commandRecordTtlMs: cfg.command_record_ttl,
      });
      ref.inv = inventory;
      await s.peers?.start({
        relay: (req, deadlineMs) => inventory.relayLocal(req, deadlineMs),
        logs: (req, write, signal) => inventory.fetchLogsLocal(req, write, signal),
        stats: (nodeId, st) => inventory.acceptStats(nodeId, st, false),
      });
      inventory.startSweeper(cfg.sweep_interval);

      const health = new HealthService('SERVING');
      const api = createServer({ 'grpc.max_concurrent_streams': 10_000 });
      api.addService(inventoryServiceDefinition(), inventoryServiceHandlers(inventory, { log: ctx.log }));
      api.addService(controlServiceDefinition(), controlNodeHandlers(nodeAdmin(inventory), { log: ctx.log }));
      health.set('llmgw.inventory.v1.InventoryService', 'SERVING');
      health.set('llmgw.control.v1.ControlService', 'SERVING');
      health.addTo(api);
      const address = await ctx.listenGrpc('grpc', api, cfg.listen, cfg.tls);
      ctx.onClose('watches', () => {
        health.shutdown();
        inventory.endWatches();
      });

      const agentHealth = new HealthService('SERVING');
      const fleet = createServer({ 'grpc.max_concurrent_streams': 100 });
      fleet.addService(agentServiceDefinition(), { Connect: inventory.connectHandler() } as agentV1.AgentServiceHandlers);
      agentHealth.set('llmgw.agent.v1.AgentService', 'SERVING');
      agentHealth.addTo(fleet);
      const agentAddress = await ctx.listenGrpc('agents', fleet, cfg.agent_listen, cfg.agent_tls);
      ctx.onClose('agent streams', () => {
        agentHealth.shutdown();
        inventory.close();
      });

      if (!cfg.agent_tls) ctx.log.warn({ agentAddress }, 'the fleet port accepts agents in plaintext without certificates (insecure_agents)');
      ctx.readiness(() => ({ ready: true, nodes: inventory.nodes().length, agents: inventory.localAgents(), watchers: inventory.watcherCount() }));
      ctx.describe({ redis: !!cfg.redis, mtls: !!cfg.agent_tls?.client_ca, nodes: inventory.nodes().length });
      return { agentAddress, address, inventory };
    },
  });
}

export interface StartOptions {
  /** Parsed (frozen) config, or raw input to parse. */
  config: InventoryConfig | InventoryConfigInput;
  log?: Logger;
  clock?: () => number;
}

export interface RunningInventory extends InventoryHandle {
  adminUrl: string;
  instanceId: string;
  registry: Registry;
  close(): Promise<void>;
}

/** Starts one inventory instance in this process (tests, `llmgw up`). */
export async function start(opts: StartOptions): Promise<RunningInventory> {
  const running = await startService(inventoryService({ clock: opts.clock }), { config: opts.config, log: opts.log, configSource: 'inventory options' });
  return { ...running.service, adminUrl: running.adminUrl!, instanceId: running.instanceId, registry: running.registry, close: () => running.close() };
}

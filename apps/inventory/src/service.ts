import { agentServiceDefinition } from '@llmgw/agent-rpc';
import type { agentV1 } from '@llmgw/contracts';
import { inventoryConfigSchema, type InventoryConfig, type InventoryConfigInput } from '@llmgw/config';
import type { AuthorizationTable } from '@llmgw/grpc';
import { inventoryServiceDefinition, inventoryServiceHandlers } from '@llmgw/inventory-rpc';
import type { Logger, Registry } from '@llmgw/observability';
import { defineService, startService, type ServiceContext } from '@llmgw/service';
import { RedisPeers } from './cluster';
import { MemoryFence, RedisFence, type FenceStore } from './fence';
import { MemoryFleetStore, type FleetStore } from './fleet-store';
import { RedisFleetStore } from './fleet-store-redis';
import { MemoryIntentStore, RedisIntentStore, type IntentStore } from './intent-store';
import { Inventory } from './inventory';
import { createInventoryMetrics } from './metrics';

/**
 * Who may call inventory's internal port (docs/security.md): the
 * placement-scheduler reads the fleet and commands shards; operators (ctl),
 * the portal and the placement-scheduler (relaying ctl) use the node half of
 * ControlService. Health is open to any certificate.
 */
export const INVENTORY_AUTHORIZATION: AuthorizationTable = {
  'llmgw.inventory.v1.InventoryService': ['placement-scheduler'],
};

/** The fleet port: nodes only, each as itself (CN = node id, checked on Register). */
export const AGENT_PORT_AUTHORIZATION: AuthorizationTable = {
  'llmgw.agent.v1.AgentService': ['node'],
};

/** What a started inventory hands back (tests, `llmgw up`). */
export interface InventoryHandle {
  /** Fleet-facing gRPC address (AgentService), "host:port". */
  agentAddress: string;
  /** Internal gRPC address (InventoryService, for the placement-scheduler), "host:port". */
  address: string;
  inventory: Inventory;
}

interface Stores {
  store: FleetStore;
  intents: IntentStore;
  fence: FenceStore;
  peers?: RedisPeers;
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
  return { store, intents: new RedisIntentStore(redis, cfg.redis.key_prefix), fence: new RedisFence(redis, cfg.redis.key_prefix), peers };
}

/**
 * The inventory service (docs/inventory.md) on the service host: the fleet
 * store (in-process, or shared through Redis), the internal port
 * (InventoryService, for the placement-scheduler), the fleet-facing
 * AgentService port (mTLS, CN = node id), the liveness sweep. Engine stats
 * stay in memory (ctl top, WatchFleet include_stats); nothing publishes
 * them to Redis (docs/inventory.md). On shutdown agents and watchers are told to go
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
      const metrics = createInventoryMetrics(
        ctx.registry,
        () => ref.inv?.nodes() ?? [],
        () => ref.inv?.watcherCount() ?? 0,
      );
      const inventory = new Inventory({
        instanceId: ctx.instanceId,
        store: s.store,
        intents: s.intents,
        fence: s.fence,
        log: ctx.log,
        metrics,
        peers: s.peers,
        clock: opts.clock,
        requirePeerCert: !!cfg.agent_tls?.client_ca,
        missedHeartbeats: cfg.missed_heartbeats,
        lostAfterMs: cfg.lost_after,
        forgetAfterMs: cfg.forget_after,
        commandTimeoutMs: cfg.command_timeout,
        commandRecordTtlMs: cfg.command_record_ttl,
        maxShardsPerNode: cfg.max_shards_per_node,
      });
      ref.inv = inventory;
      await s.peers?.start({
        relay: (req, deadlineMs) => inventory.relayLocal(req, deadlineMs),
        logs: (req, write, signal) => inventory.fetchLogsLocal(req, write, signal),
        stats: (nodeId, st) => inventory.acceptStats(nodeId, st, false),
      });
      inventory.startSweeper(cfg.sweep_interval);

      const { address, health } = await ctx.grpcServer('grpc', {
        address: cfg.listen,
        tls: cfg.tls,
        insecure: cfg.insecure,
        authorize: INVENTORY_AUTHORIZATION,
        services: [{ definition: inventoryServiceDefinition(), implementation: inventoryServiceHandlers(inventory, { log: ctx.log }) as never }],
        options: { 'grpc.max_concurrent_streams': 10_000 },
        maxReceiveMessageBytes: cfg.max_message_bytes,
      });
      ctx.onClose('watches', () => {
        health.shutdown();
        inventory.endWatches();
      });

      const fleetPort = await ctx.grpcServer('agents', {
        address: cfg.agent_listen,
        tls: cfg.agent_tls,
        tlsKey: 'agent_tls',
        insecure: cfg.insecure,
        authorize: AGENT_PORT_AUTHORIZATION,
        services: [{ definition: agentServiceDefinition(), implementation: { Connect: inventory.connectHandler() } as agentV1.AgentServiceHandlers as never }],
        options: { 'grpc.max_concurrent_streams': 100 },
        maxReceiveMessageBytes: cfg.agent_max_message_bytes,
      });
      const agentAddress = fleetPort.address;
      ctx.onClose('agent streams', () => {
        fleetPort.health.shutdown();
        inventory.close();
      });

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

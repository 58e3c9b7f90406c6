import { parseListen, reachableHost } from '@llmgw/cli';
import { agentServiceDefinition } from '@llmgw/agent-rpc';
import type { agentV1 } from '@llmgw/contracts';
import { inventoryConfigSchema, parseConfig, type InventoryConfig, type InventoryConfigInput } from '@llmgw/config';
import { HealthService, createServer, listen, shutdown } from '@llmgw/grpc';
import { controlNodeHandlers, controlServiceDefinition, inventoryServiceDefinition, inventoryServiceHandlers } from '@llmgw/inventory-rpc';
import { createLogger, createRegistry, logListening, type Logger } from '@llmgw/observability';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import { RedisPeers } from './cluster';
import { EngineStatsPublisher } from './engine-stats';
import { MemoryFence, RedisFence } from './fence';
import { MemoryFleetStore, type FleetStore } from './fleet-store';
import { RedisFleetStore } from './fleet-store-redis';
import { MemoryIntentStore, RedisIntentStore } from './intent-store';
import { Inventory, nodeAdmin } from './inventory';
import { createInventoryMetrics } from './metrics';

export interface StartOptions {
  /** Parsed (frozen) config, or raw input to parse. */
  config: InventoryConfig | InventoryConfigInput;
  log?: Logger;
  clock?: () => number;
}

export interface RunningInventory {
  /** Fleet-facing gRPC address (AgentService), "host:port". */
  agentAddress: string;
  /** Internal gRPC address (InventoryService, ControlService node half), "host:port". */
  address: string;
  /** Admin base URL: /metrics, /healthz, /readyz. */
  adminUrl: string;
  instanceId: string;
  inventory: Inventory;
  registry: Registry;
  close(): Promise<void>;
}

function tlsOf(t: InventoryConfig['tls']) {
  if (!t) return undefined;
  return { cert: readFileSync(t.cert), key: readFileSync(t.key), ...(t.client_ca ? { ca: readFileSync(t.client_ca), requireClientCert: true } : {}) };
}

/**
 * Starts an inventory instance: the fleet store (in-process, or shared
 * through Redis), the fleet-facing AgentService port (mTLS, CN = node id),
 * the internal InventoryService + ControlService port, the liveness sweep,
 * engine stats publication and the admin listener. `close()` stops in
 * reverse order: agents are told to reconnect elsewhere first.
 */
export async function start(opts: StartOptions): Promise<RunningInventory> {
  const cfg: InventoryConfig = Object.isFrozen(opts.config) ? (opts.config as InventoryConfig) : parseConfig(inventoryConfigSchema, opts.config, 'inventory options');
  const log = opts.log ?? createLogger({ service: 'inventory', level: cfg.log_level });
  const instanceId = cfg.instance_id ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const registry = createRegistry('inventory');
  const closers: Array<() => Promise<unknown> | unknown> = [];
  const closeAll = async () => {
    while (closers.length) await Promise.resolve(closers.pop()!()).catch((e) => log.warn({ err: e }, 'close step failed'));
  };

  try {
    let store: FleetStore;
    let intents;
    let fence;
    let peers: RedisPeers | undefined;
    let publisher: EngineStatsPublisher | undefined;
    if (cfg.redis) {
      const ro = { maxRetriesPerRequest: 2, retryStrategy: (n: number) => Math.min(n * 200, 2000) };
      const redis = new Redis(cfg.redis.url, ro);
      const reader = new Redis(cfg.redis.url, { ...ro, maxRetriesPerRequest: null });
      const sub = new Redis(cfg.redis.url, ro);
      for (const c of [redis, reader, sub]) c.on('error', (e) => log.debug({ err: e.message }, 'inventory redis error'));
      closers.push(() => redis.quit().catch(() => redis.disconnect()));
      store = await RedisFleetStore.open({ redis, reader, keyPrefix: cfg.redis.key_prefix, historySize: cfg.watch_history, clock: opts.clock, log });
      closers.push(() => store.close());
      intents = new RedisIntentStore(redis, cfg.redis.key_prefix);
      fence = new RedisFence(redis, cfg.redis.key_prefix);
      peers = new RedisPeers({ redis, sub, keyPrefix: cfg.redis.key_prefix, instanceId, instanceTtlMs: cfg.redis.instance_ttl, log, clock: opts.clock });
      closers.push(() => peers!.close());
      if (cfg.engine_stats.enabled) {
        publisher = new EngineStatsPublisher({ redis, keyPrefix: cfg.redis.key_prefix, ttlMs: cfg.engine_stats.ttl, log, clock: opts.clock });
        closers.push(() => publisher!.close());
      }
    } else {
      store = new MemoryFleetStore({ historySize: cfg.watch_history, clock: opts.clock });
      intents = new MemoryIntentStore();
      fence = new MemoryFence();
    }

    // The metrics read the inventory at scrape time; it is created right after them.
    const ref: { inv?: Inventory } = {};
    const metrics = createInventoryMetrics(registry, () => ref.inv?.nodes() ?? [], () => ref.inv?.watcherCount() ?? 0);
    const inventory = new Inventory({
      instanceId,
      store,
      intents,
      fence,
      log,
      metrics,
      peers,
      onLocalStats: publisher ? (n, s) => publisher!.add(n, s) : undefined,
      clock: opts.clock,
      requirePeerCert: !!cfg.agent_tls?.client_ca,
      missedHeartbeats: cfg.missed_heartbeats,
      lostAfterMs: cfg.lost_after,
      forgetAfterMs: cfg.forget_after,
      commandTimeoutMs: cfg.command_timeout,
      commandRecordTtlMs: cfg.command_record_ttl,
    });
    ref.inv = inventory;
    await peers?.start({
      relay: (req, deadlineMs) => inventory.relayLocal(req, deadlineMs),
      logs: (req, write, signal) => inventory.fetchLogsLocal(req, write, signal),
      stats: (nodeId, s) => inventory.acceptStats(nodeId, s, false),
    });
    inventory.startSweeper(cfg.sweep_interval);

    // Internal port: InventoryService + ControlService (node half) + health.
    const health = new HealthService('SERVING');
    const api = createServer({ 'grpc.max_concurrent_streams': 10_000 });
    api.addService(inventoryServiceDefinition(), inventoryServiceHandlers(inventory, { log }));
    api.addService(controlServiceDefinition(), controlNodeHandlers(nodeAdmin(inventory), { log }));
    health.set('llmgw.inventory.v1.InventoryService', 'SERVING');
    health.set('llmgw.control.v1.ControlService', 'SERVING');
    health.addTo(api);
    const l = parseListen(cfg.listen);
    const apiPort = await listen(api, l.host, l.port, { tls: tlsOf(cfg.tls) });
    closers.push(() => shutdown(api, 1000));

    // Fleet-facing port: AgentService only.
    const agentHealth = new HealthService('SERVING');
    const fleet = createServer({ 'grpc.max_concurrent_streams': 100 });
    fleet.addService(agentServiceDefinition(), { Connect: inventory.connectHandler() } as agentV1.AgentServiceHandlers);
    agentHealth.set('llmgw.agent.v1.AgentService', 'SERVING');
    agentHealth.addTo(fleet);
    const al = parseListen(cfg.agent_listen);
    const agentPort = await listen(fleet, al.host, al.port, { tls: tlsOf(cfg.agent_tls) });
    closers.push(() => shutdown(fleet, 1000));
    closers.push(() => {
      health.shutdown();
      agentHealth.shutdown();
      inventory.close();
    });

    const admin = adminServer(registry, instanceId, () => inventory.nodes().length);
    const a = parseListen(cfg.admin_listen);
    await new Promise<void>((res, rej) => {
      admin.once('error', rej);
      admin.listen(a.port, a.host, () => res());
    });
    closers.push(() => new Promise<void>((res) => admin.close(() => res())));

    const address = `${reachableHost(l.host)}:${apiPort}`;
    const agentAddress = `${reachableHost(al.host)}:${agentPort}`;
    const adminUrl = `http://${reachableHost(a.host)}:${(admin.address() as AddressInfo).port}`;
    if (!cfg.agent_tls) log.warn({ agentAddress }, 'the fleet port accepts agents in plaintext without certificates (insecure_agents)');
    logListening(log, { url: `http://${address}`, urls: { grpc: `http://${address}`, agents: `${cfg.agent_tls ? 'https' : 'http'}://${agentAddress}`, admin: adminUrl }, instanceId, redis: !!cfg.redis, nodes: inventory.nodes().length });
    let closing: Promise<void> | undefined;
    return { agentAddress, address, adminUrl, instanceId, inventory, registry, close: () => (closing ??= closeAll()) };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

function adminServer(registry: Registry, instanceId: string, nodes: () => number): HttpServer {
  return createHttpServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics') {
      void registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
      return;
    }
    if (path === '/healthz' || path === '/readyz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', instanceId, nodes: nodes() }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
  });
}

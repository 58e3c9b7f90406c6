import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { FleetNode } from '@llmgw/inventory-rpc';
import { LATENCY_BUCKETS } from '@llmgw/observability';
import { isTerminalShardState } from '@llmgw/contracts';

/** A node's state as the operator sees it: connectivity first (lost, unreachable), then intent (draining, cordoned), else ready. */
export function nodeStateName(n: FleetNode): 'ready' | 'cordoned' | 'draining' | 'unreachable' | 'lost' {
  if (n.connectivity === 'CONNECTIVITY_LOST') return 'lost';
  if (n.connectivity !== 'CONNECTIVITY_CONNECTED') return 'unreachable';
  if (n.intent === 'NODE_INTENT_DRAINING') return 'draining';
  if (n.intent === 'NODE_INTENT_CORDONED') return 'cordoned';
  return 'ready';
}

/** Free GPUs of a node that can take work: connected, no intent, healthy, held by no live shard. */
export function freeGpus(n: FleetNode): number {
  if (nodeStateName(n) !== 'ready') return 0;
  const held = new Set<number>();
  for (const s of n.shards) if (!isTerminalShardState(s.state)) for (const g of s.spec?.gpuIndices ?? []) held.add(g);
  const failed = new Set(n.gpuHealth.filter((h) => h.health === 'GPU_HEALTH_FAILED').map((h) => h.index));
  return (n.info?.gpus ?? []).filter((g) => !held.has(g.index) && !failed.has(g.index)).length;
}

export interface InventoryMetrics {
  agentConnected(nodeId: string, connected: boolean): void;
  agentForgotten(nodeId: string): void;
  command(kind: string, result: string, seconds: number): void;
  commandFailed(kind: string, reason: string): void;
  registerRefused(reason: string): void;
}

/**
 * The inventory's metrics (docs/inventory.md#metrics) on `registry`. Fleet-wide gauges (nodes by
 * state, free GPUs) are computed at scrape time from `fleet()`; every
 * instance reports the whole fleet, so aggregate them with max, not sum.
 */
export function createInventoryMetrics(registry: Registry, fleet: () => FleetNode[], watchers: () => number): InventoryMetrics {
  const connected = new Gauge({
    name: 'llmgw_agent_connected',
    help: '1 while the node agent holds a registered stream to this inventory instance.',
    labelNames: ['node'],
    registers: [registry],
  });
  new Gauge({
    name: 'llmgw_gpu_free',
    help: 'GPUs free for placement: on Ready, uncordoned nodes, healthy and held by no live shard.',
    labelNames: ['gpu_class', 'fabric'],
    registers: [registry],
    collect() {
      this.reset();
      const sums = new Map<string, { gpu_class: string; fabric: string; n: number }>();
      for (const n of fleet()) {
        const free = freeGpus(n);
        const gpuClass = n.info?.gpus[0]?.gpuClass || 'none';
        const fabric = n.info?.fabrics[0]?.fabric || 'none';
        const k = `${gpuClass}\0${fabric}`;
        const e = sums.get(k) ?? { gpu_class: gpuClass, fabric, n: 0 };
        e.n += free;
        sums.set(k, e);
      }
      for (const e of sums.values()) this.set({ gpu_class: e.gpu_class, fabric: e.fabric }, e.n);
    },
  });
  new Gauge({
    name: 'llmgw_inventory_nodes',
    help: 'Nodes known to inventory, by state (Ready, Cordoned, Draining, Unreachable, Lost).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const counts: Record<string, number> = { ready: 0, cordoned: 0, draining: 0, unreachable: 0, lost: 0 };
      for (const n of fleet()) counts[nodeStateName(n)]++;
      for (const [state, v] of Object.entries(counts)) this.set({ state }, v);
    },
  });
  sensorGauges(registry, fleet);
  new Gauge({
    name: 'llmgw_inventory_watchers',
    help: 'Open WatchFleet streams on this instance.',
    registers: [registry],
    collect() {
      this.set(watchers());
    },
  });
  const duration = new Histogram({
    name: 'llmgw_inventory_command_duration_seconds',
    help: "Shard command relay time, from the request to the agent's Ack.",
    labelNames: ['command', 'result'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'llmgw_inventory_command_failures_total',
    help: 'Shard commands that did not get an accepting Ack.',
    labelNames: ['command', 'reason'],
    registers: [registry],
  });
  const refused = new Counter({
    name: 'llmgw_inventory_register_refused_total',
    help: 'Agent streams refused at registration.',
    labelNames: ['reason'],
    registers: [registry],
  });
  return {
    agentConnected: (node, c) => connected.set({ node }, c ? 1 : 0),
    agentForgotten: (node) => connected.remove({ node }),
    command: (command, result, s) => duration.observe({ command, result }, s),
    commandFailed: (command, reason) => failures.inc({ command, reason }),
    registerRefused: (reason) => refused.inc({ reason }),
  };
}

/** A recorder that records nothing (tests that do not look). */
export const NO_METRICS: InventoryMetrics = {
  agentConnected: () => undefined,
  agentForgotten: () => undefined,
  command: () => undefined,
  commandFailed: () => undefined,
  registerRefused: () => undefined,
};

/**
 * Node sensors as the agents last reported them (docs/inventory.md
 * "Sensors"): per GPU its temperature, power draw and whether its clocks are
 * held back for a reason other than idling; per host its CPU temperature and
 * RAPL power. Only connected nodes, and only what the node reports (0 =
 * unknown is left out).
 */
function sensorGauges(registry: Registry, fleet: () => FleetNode[]): void {
  const perGpu = (name: string, help: string, value: (h: FleetNode['gpuHealth'][number]) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['node', 'gpu'],
      registers: [registry],
      collect() {
        this.reset();
        for (const n of fleet()) {
          if (n.connectivity !== 'CONNECTIVITY_CONNECTED') continue;
          for (const h of n.gpuHealth) {
            const v = value(h);
            if (v !== undefined) this.set({ node: n.info?.nodeId ?? '', gpu: String(h.index) }, v);
          }
        }
      },
    });
  perGpu('llmgw_gpu_temperature_celsius', 'GPU temperature as the agent last read it, degrees Celsius.', (h) =>
    h.temperatureCelsius > 0 ? h.temperatureCelsius : undefined,
  );
  perGpu('llmgw_gpu_power_watts', 'GPU power draw as the agent last read it, watts.', (h) => (h.powerDrawWatts > 0 ? h.powerDrawWatts : undefined));
  perGpu('llmgw_gpu_throttled', '1 when the GPU reports a clocks event reason other than idle (power cap, thermal slowdown, …), else 0.', (h) =>
    h.clocksEventReasons ? (throttled(h.clocksEventReasons) ? 1 : 0) : undefined,
  );
  const perHost = (name: string, help: string, value: (s: NonNullable<FleetNode['hostSensors']>) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['node'],
      registers: [registry],
      collect() {
        this.reset();
        for (const n of fleet()) {
          const v = n.connectivity === 'CONNECTIVITY_CONNECTED' && n.hostSensors ? value(n.hostSensors) : 0;
          if (v > 0) this.set({ node: n.info?.nodeId ?? '' }, v);
        }
      },
    });
  perHost('llmgw_node_cpu_temperature_celsius', 'The hottest CPU sensor of the node (hwmon, thermal zone), degrees Celsius.', (s) => s.cpuTemperatureCelsius);
  perHost('llmgw_node_cpu_power_watts', 'CPU package power of the node from its RAPL counters, watts.', (s) => s.cpuPowerWatts);
}

/** Whether a clocks event reasons bitmask ("0x…") has a bit besides GPU idle (0x1) and the applications clocks setting (0x2). */
export function throttled(mask: string): boolean {
  try {
    return (BigInt(mask) & ~BigInt(3)) !== BigInt(0);
  } catch {
    return false;
  }
}

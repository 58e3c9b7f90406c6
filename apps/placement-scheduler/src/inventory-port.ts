import { randomUUID } from 'node:crypto';
import type { inventoryV1 } from '@llmgw/contracts';
import { WatchedFleet, type InventoryClient } from '@llmgw/inventory-rpc';
import type { Logger } from '@llmgw/observability';
import type { ShardCommandSink, ShardLaunchSpec } from '@llmgw/placement';
import { specToWire } from './fleet-map';
import type { FleetSource } from './scheduler';

/** The one call the sink needs (InventoryClient fits; tests pass their own server's client). */
export interface ShardCommandSender {
  sendShardCommand(req: inventoryV1.ShardCommandRequest): Promise<inventoryV1.ShardCommandResponse__Output>;
}

/**
 * Shard commands through inventory's SendShardCommand, each carrying the
 * leader's fencing token. A REJECTED ack, or any call failure, throws: the
 * reconciler then fails the replica (start) or retries next pass (stop, drain).
 */
export class InventoryShardSink implements ShardCommandSink {
  constructor(private readonly inv: ShardCommandSender) {}

  private async send(nodeId: string, cmd: Pick<inventoryV1.ShardCommandRequest, 'start' | 'stop' | 'drain'>, fencingToken: number): Promise<void> {
    const res = await this.inv.sendShardCommand({ nodeId, ...cmd, fencingToken });
    const ack = res.ack;
    if (!ack) throw new Error('inventory answered without an ack');
    if (ack.result === 'ACK_RESULT_REJECTED') throw new Error(`rejected by the agent: ${ack.errorCode || 'no code'}${ack.message ? `: ${ack.message}` : ''}`);
  }

  start(nodeId: string, spec: ShardLaunchSpec, token: number): Promise<void> {
    return this.send(nodeId, { start: { commandId: randomUUID(), spec: specToWire(spec) } }, token);
  }

  drain(nodeId: string, shardId: string, reason: string, timeoutMs: number, token: number): Promise<void> {
    return this.send(nodeId, { drain: { commandId: randomUUID(), shardId, timeoutMs, reason } }, token);
  }

  stop(nodeId: string, shardId: string, reason: string, token: number): Promise<void> {
    return this.send(nodeId, { stop: { commandId: randomUUID(), shardId, reason } }, token);
  }
}

/** Inventory's fleet, kept current by a self-resuming WatchFleet. */
export class InventoryFleetSource implements FleetSource {
  private readonly view = new WatchedFleet();
  private readonly listeners: Array<() => void> = [];
  private snapshot = false;
  private live = false;
  private readonly watch: ReturnType<InventoryClient['watchFleet']>;
  /** The latest engine queue depth and running count per replica (leader shards' EngineStats), for the autoscaler. */
  private readonly load = new Map<string, { waiting: number; running: number }>();

  constructor(client: InventoryClient, log: Logger) {
    this.watch = client.watchFleet({
      includeStats: true,
      onEvent: (ev) => {
        const st = ev.event === 'stats' ? ev.stats?.stats : undefined;
        if (st?.replicaId) this.load.set(st.replicaId, { waiting: st.waiting, running: st.running });
        this.view.apply(ev);
        if (ev.event === 'snapshot') this.snapshot = true;
        if (ev.event !== 'stats') for (const l of this.listeners) l();
      },
      onConnection: (connected, err) => {
        this.live = connected;
        // Inventory's loss and return are the inventory dependency's warn lines (the service host).
        if (connected) log.info({}, 'fleet watch connected');
        else log.info({ err: err?.message }, 'fleet watch lost; reconciling paused until it resumes');
      },
    });
  }

  synced(): boolean {
    return this.snapshot && this.live;
  }

  /** Requests the replica's engine last reported queued and running (0 when it has not reported). */
  engineLoad(replicaId: string): { waiting: number; running: number } {
    return this.load.get(replicaId) ?? { waiting: 0, running: 0 };
  }

  nodes() {
    return this.view.nodes.values();
  }

  onChange(cb: () => void): void {
    this.listeners.push(cb);
  }

  close(): void {
    this.watch.close();
  }
}

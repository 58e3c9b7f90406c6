import type { agentV1, inventoryV1 } from '@llmgw/contracts';

export type FleetNode = inventoryV1.Node__Output;
export type FleetEvent = inventoryV1.FleetEvent__Output;
export type ShardStatus = agentV1.ShardStatus__Output;

/** The engine secret never enters the fleet record (agents do not send it; this holds if one does). */
function withoutSecret(status: ShardStatus): ShardStatus {
  return status.spec?.apiKey ? { ...status, spec: { ...status.spec, apiKey: '' } } : status;
}

/**
 * A shard list with one status merged in: replaces the entry with the same
 * shard_id (keeping the earlier spec when the new status omits it, as
 * agents do after the first report) or appends it. Inventory and every
 * watch consumer apply shard changes with this one function (or
 * `mergeShardStatuses` for many at once), so their views cannot drift apart.
 */
export function mergeShardStatus(shards: readonly ShardStatus[], status: ShardStatus): ShardStatus[] {
  return mergeShardStatuses(shards, [status]);
}

/**
 * `mergeShardStatus` for many statuses at once, in one pass over each list
 * (a map by shard_id): linear in shards + statuses, so a node reporting
 * thousands of shards costs thousands of steps, not millions. Later
 * statuses of the same shard win; order is kept, new shards appended.
 */
export function mergeShardStatuses(shards: readonly ShardStatus[], statuses: readonly ShardStatus[]): ShardStatus[] {
  const out = shards.slice();
  const at = new Map<string, number>();
  for (let i = 0; i < out.length; i++) at.set(out[i].shardId, i);
  for (const raw of statuses) {
    const status = withoutSecret(raw);
    const i = at.get(status.shardId);
    if (i === undefined) {
      at.set(status.shardId, out.length);
      out.push(status);
    } else out[i] = status.spec ? status : { ...status, spec: out[i].spec };
  }
  return out;
}

/**
 * The fleet as a watch consumer sees it: apply every FleetEvent of a
 * WatchFleet stream, in order, and `nodes` equals inventory's state at
 * `revision`. A snapshot replaces everything; stats events change nothing.
 */
export class WatchedFleet {
  readonly nodes = new Map<string, FleetNode>();
  revision = 0;
  epoch = '';

  apply(ev: FleetEvent): void {
    switch (ev.event) {
      case 'snapshot':
        this.nodes.clear();
        for (const n of ev.snapshot!.nodes) this.nodes.set(n.info!.nodeId, n);
        break;
      case 'nodeChanged':
        this.nodes.set(ev.nodeChanged!.info!.nodeId, ev.nodeChanged!);
        break;
      case 'nodeRemoved':
        this.nodes.delete(ev.nodeRemoved!.nodeId);
        break;
      case 'shardChanged': {
        const n = this.nodes.get(ev.shardChanged!.nodeId);
        if (n) this.nodes.set(n.info!.nodeId, { ...n, shards: mergeShardStatus(n.shards, ev.shardChanged!.status!) });
        break;
      }
      case 'stats':
        return;
    }
    this.revision = ev.revision;
    this.epoch = ev.epoch;
  }

  /** Nodes ordered by id. */
  list(): FleetNode[] {
    return [...this.nodes.values()].sort((a, b) => a.info!.nodeId.localeCompare(b.info!.nodeId));
  }
}

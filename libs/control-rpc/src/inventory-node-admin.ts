import type { agentV1, controlV1, inventoryV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { withActor } from '@llmgw/grpc';
import type { FleetNode, InventoryClient } from '@llmgw/inventory-rpc';
import { randomUUID } from 'node:crypto';
import { toControlNode, type Actor, type ControlNode, type LogsReply, type NodeAdminBackend, type NodeAdminResponse } from './nodes';

/** What the node half needs of inventory (InventoryClient fits). */
export type InventoryAdminPort = Pick<InventoryClient, 'listNodes' | 'setNodeIntent' | 'fetchLogs'>;

/** inventory ListNodes (with stats) → control Nodes, each with its shards' latest engine stats. */
export function controlNodesOf(res: inventoryV1.ListNodesResponse__Output): ControlNode[] {
  const stats = new Map<string, agentV1.EngineStats__Output[]>();
  for (const s of res.stats ?? []) {
    if (!s.stats) continue;
    const l = stats.get(s.nodeId) ?? [];
    l.push(s.stats);
    stats.set(s.nodeId, l);
  }
  return res.nodes.map((n) => toControlNode(n, stats.get(n.info!.nodeId) ?? []));
}

/**
 * The node half of the ControlService, answered from inventory's
 * InventoryService: what the placement-scheduler — the one owner of the
 * ControlService — serves to `ctl`. Every change carries the operator's
 * identity to inventory in `x-llmgw-actor`, where it is recorded with the
 * intent; the ControlService handlers write the audit event.
 */
export class InventoryNodeAdmin implements NodeAdminBackend {
  constructor(private readonly inv: InventoryAdminPort) {}

  async listNodes(): Promise<ControlNode[]> {
    return controlNodesOf(await this.inv.listNodes({ includeStats: true }));
  }

  async getNode(nodeId: string): Promise<ControlNode> {
    const [n] = controlNodesOf(await this.inv.listNodes({ includeStats: true, nodeId }));
    if (!n) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `node ${nodeId} is not in the inventory`);
    return n;
  }

  cordon(nodeId: string, reason: string, actor: Actor): Promise<NodeAdminResponse> {
    return this.setIntent(nodeId, 'NODE_INTENT_CORDONED', reason, 0, actor);
  }

  uncordon(nodeId: string, actor: Actor): Promise<NodeAdminResponse> {
    return this.setIntent(nodeId, 'NODE_INTENT_UNSPECIFIED', '', 0, actor);
  }

  drain(nodeId: string, reason: string, replicaDrainTimeoutMs: number, actor: Actor): Promise<NodeAdminResponse> {
    return this.setIntent(nodeId, 'NODE_INTENT_DRAINING', reason, replicaDrainTimeoutMs, actor);
  }

  private async setIntent(nodeId: string, intent: inventoryV1.NodeIntent, reason: string, drainTimeoutMs: number, actor: Actor): Promise<NodeAdminResponse> {
    const res = await this.inv.setNodeIntent({ nodeId, intent, reason, drainTimeoutMs }, { metadata: withActor(actor) });
    return { node: res.node ? toControlNode(res.node) : null, changed: res.changed, replicaIds: res.replicaIds };
  }

  /**
   * `ctl logs`: the agent's log, a shard's output, or a replica's (its
   * leader, or the shard of a given rank), wherever it runs: the shard is
   * found in inventory's current fleet, then its node's agent is asked.
   */
  async logs(req: controlV1.LogsRequest__Output, write: (c: LogsReply) => Promise<void>, signal: AbortSignal, actor: Actor): Promise<void> {
    let nodeId = req.nodeId;
    let shardId = req.shardId;
    if (req.source === 'LOG_SOURCE_SHARD') {
      const { nodes } = await this.inv.listNodes(nodeId ? { nodeId } : {});
      // A name may be a shard or a replica (ctl cannot tell): the shard first.
      const found =
        (shardId ? findShard(nodes, shardId, '', undefined) : undefined) ??
        (req.replicaId ? findShard(nodes, '', req.replicaId, req.rankSet ? req.rank : undefined) : undefined);
      if (!found) {
        const what = [shardId && `shard ${shardId}`, req.replicaId && `replica ${req.replicaId}${req.rankSet ? ` rank ${req.rank}` : ''}`]
          .filter(Boolean)
          .join(' or ');
        throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `no node reports ${what}`);
      }
      nodeId = found.nodeId;
      shardId = found.shardId;
    }
    const request = { requestId: randomUUID(), source: req.source, shardId, tailLines: req.tailLines, sinceMs: req.sinceMs };
    for await (const chunk of this.inv.fetchLogs({ nodeId, request }, { signal, deadlineMs: 0, metadata: withActor(actor) })) await write(chunk);
  }
}

/** A shard by id, or a replica's shard of `rank` (the leader when unset), among `nodes`. */
export function findShard(
  nodes: readonly FleetNode[],
  shardId: string,
  replicaId: string,
  rank: number | undefined,
): { nodeId: string; shardId: string } | undefined {
  const candidates: Array<{ nodeId: string; s: agentV1.ShardStatus__Output }> = [];
  for (const n of nodes) {
    for (const s of n.shards) {
      if (shardId ? s.shardId === shardId : (s.replicaId || s.spec?.replicaId) === replicaId) candidates.push({ nodeId: n.info!.nodeId, s });
    }
  }
  if (shardId) return candidates[0] && { nodeId: candidates[0].nodeId, shardId };
  const want = rank ?? 0;
  const c = candidates.find((x) => (x.s.spec?.rank ?? 0) === want) ?? (rank === undefined ? candidates[0] : undefined);
  return c && { nodeId: c.nodeId, shardId: c.s.shardId };
}

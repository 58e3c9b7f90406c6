import { type inventoryV1, isTerminalShardState } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import type { FleetNode } from '@llmgw/inventory-rpc';
import type { NodeIntentRecord } from './intent-store';
import { intentFields, type InventoryCore } from './inventory-core';

/** Operator intent on nodes (cordon, drain), persisted and announced. */
export class NodeAdmin {
  constructor(private readonly core: InventoryCore) {}

  /**
   * Records operator intent (SetNodeIntent): persisted first (it must
   * survive a restart), then applied to the node and announced as a node
   * change. Repeating the current intent, reason and drain timeout changes
   * nothing (changed = false).
   */
  async setNodeIntent(req: inventoryV1.SetNodeIntentRequest__Output, actor: string): Promise<inventoryV1.SetNodeIntentResponse> {
    const { nodeId, intent } = req;
    if (!this.core.o.store.mirror.get(nodeId)) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `node ${nodeId} is not in the inventory`);
    const reason = intent === 'NODE_INTENT_UNSPECIFIED' ? '' : req.reason;
    const drainTimeoutMs = intent === 'NODE_INTENT_DRAINING' ? Number(req.drainTimeoutMs) || 0 : 0;
    const rec: NodeIntentRecord | undefined =
      intent === 'NODE_INTENT_UNSPECIFIED' ? undefined : { intent, reason, sinceMs: this.core.clock(), actor, ...(drainTimeoutMs ? { drainTimeoutMs } : {}) };
    const prev = await this.core.o.intents.get(nodeId);
    const same = prev?.intent === rec?.intent && (prev?.reason ?? '') === (rec?.reason ?? '') && (prev?.drainTimeoutMs ?? 0) === drainTimeoutMs;
    if (!same) await this.core.o.intents.set(nodeId, rec);
    const changed = await this.core.o.store.update(nodeId, (c) => {
      if (!c || (c.intent === intent && c.intentReason === reason && Number(c.intentDrainTimeoutMs ?? 0) === drainTimeoutMs)) return null;
      const node: FleetNode = { ...c, ...intentFields(rec) };
      return { node, events: [{ nodeChanged: node }] };
    });
    if (changed) this.core.o.log.info({ node: nodeId, intent, reason, drainTimeoutMs: drainTimeoutMs || undefined, actor }, 'node intent changed');
    const n = this.core.node(nodeId)!;
    const replicaIds =
      intent === 'NODE_INTENT_DRAINING'
        ? [...new Set(n.shards.filter((s) => !isTerminalShardState(s.state)).map((s) => s.replicaId || s.spec?.replicaId || ''))].filter(Boolean).sort()
        : [];
    return { node: n, changed, replicaIds };
  }
}

import type { agentV1, inventoryV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import type { FleetNode, WatchSink } from '@llmgw/inventory-rpc';
import type { InventoryCore } from './inventory-core';

/** ListNodes and WatchFleet: the fleet as served, and its changes. */
export class FleetWatch {
  private readonly sinks = new Set<WatchSink>();
  private watchers = 0;

  constructor(private readonly core: InventoryCore) {}

  watcherCount(): number {
    return this.watchers;
  }

  listNodes(req?: Partial<inventoryV1.ListNodesRequest__Output>): inventoryV1.ListNodesResponse {
    const m = this.core.o.store.mirror;
    const nodes = req?.nodeId ? [this.core.node(req.nodeId)].filter((n): n is FleetNode => !!n) : this.core.nodes();
    const stats = req?.includeStats
      ? nodes.flatMap((n) => [...(this.core.stats.get(n.info!.nodeId)?.values() ?? [])].map((st) => ({ nodeId: n.info!.nodeId, stats: st })))
      : [];
    return { revision: m.revision, epoch: m.epoch, nodes, stats };
  }

  watch(req: inventoryV1.WatchFleetRequest__Output, sink: WatchSink): () => void {
    const m = this.core.o.store.mirror;
    const replay = req.resumeEpoch ? m.replayAfter(req.resumeAfterRevision, req.resumeEpoch) : undefined;
    if (replay) for (const ev of replay) sink.push(ev);
    else sink.push(m.snapshot(this.core.clock()));
    const unsub = m.subscribe((ev) => sink.push(ev));
    let unsubStats = () => undefined as unknown;
    if (req.includeStats) {
      const l = (nodeId: string, stats: agentV1.EngineStats__Output) =>
        sink.push({ revision: m.revision, epoch: m.epoch, atMs: this.core.clock(), event: 'stats', stats: { nodeId, stats } });
      this.core.statsListeners.add(l);
      unsubStats = () => this.core.statsListeners.delete(l);
    }
    this.watchers++;
    this.sinks.add(sink);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.sinks.delete(sink);
      this.watchers--;
      unsub();
      unsubStats();
    };
  }

  /** Ends every watch (callers resume on another instance, or here after a restart). */
  endWatches(): void {
    for (const s of [...this.sinks]) s.end?.(new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'inventory is shutting down; resume the watch'));
  }
}

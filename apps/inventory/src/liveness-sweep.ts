import type { FleetNode } from '@llmgw/inventory-rpc';
import type { Mutation } from './fleet-store';
import type { InventoryCore } from './inventory-core';

/** Liveness: Connected → Unreachable → Lost → forgotten, by last-seen time. */
export class LivenessSweep {
  private sweepTimer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(private readonly core: InventoryCore) {}

  /**
   * Starts the periodic liveness sweep. Each pass runs in the check phase of
   * the event loop, after the poll phase has read what the sockets hold: when
   * this process itself stalled, the heartbeats that arrived meanwhile count
   * before any node is judged unseen (timers run before the poll phase, so a
   * pass straight from the timer would mark every node Unreachable).
   */
  startSweeper(intervalMs: number): void {
    this.sweepTimer = setInterval(() => setImmediate(() => void this.sweep()), intervalMs);
    this.sweepTimer.unref();
  }

  /**
   * One pass: Connected nodes unseen for `missedHeartbeats` intervals become
   * Unreachable, nodes unseen for `lostAfterMs` become Lost, Lost nodes
   * unseen for `forgetAfterMs` are forgotten. Each transition is a
   * conditional update, so several instances sweeping make it once.
   */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const now = this.core.clock();
      for (const n of this.core.o.store.mirror.all()) {
        const id = n.info!.nodeId;
        const seen = this.core.lastSeen(n);
        const age = now - seen;
        const hb = n.heartbeatIntervalMs || 5000;
        const limit = this.core.o.missedHeartbeats * hb;
        let next: Mutation | null = null;
        const decide = (c: FleetNode | undefined): Mutation | null => {
          if (!c) return null;
          if (c.connectivity === 'CONNECTIVITY_CONNECTED' && age > limit) {
            const node: FleetNode = {
              ...c,
              connectivity: 'CONNECTIVITY_UNREACHABLE',
              connectivityReason: `${this.core.o.missedHeartbeats} heartbeats missed (last seen ${age} ms ago, interval ${hb} ms)`,
              connectivitySinceMs: now,
              lastSeenMs: Math.max(c.lastSeenMs, seen),
            };
            return { node, events: [{ nodeChanged: node }] };
          }
          if (c.connectivity === 'CONNECTIVITY_UNREACHABLE' && age > this.core.o.lostAfterMs) {
            const node: FleetNode = {
              ...c,
              connectivity: 'CONNECTIVITY_LOST',
              connectivityReason: `unseen for more than ${this.core.o.lostAfterMs} ms (last seen ${age} ms ago); its shards count as failed`,
              connectivitySinceMs: now,
              lastSeenMs: Math.max(c.lastSeenMs, seen),
            };
            return { node, events: [{ nodeChanged: node }] };
          }
          if (c.connectivity === 'CONNECTIVITY_LOST' && age > this.core.o.forgetAfterMs) return { node: null, events: [{ nodeRemoved: { nodeId: id } }] };
          return null;
        };
        next = decide(n);
        if (!next) continue;
        const local = this.core.sessions.get(id);
        if (local && next.node?.connectivity === 'CONNECTIVITY_UNREACHABLE')
          this.core.o.log.warn({ node: id, age }, 'agent stream open but heartbeats stopped');
        try {
          const changed = await this.core.o.store.update(id, decide);
          if (changed) {
            const after = this.core.o.store.mirror.get(id);
            this.core.o.log.warn(
              { node: id, connectivity: after?.connectivity ?? 'forgotten', reason: after?.connectivityReason },
              'node connectivity changed',
            );
            if (!after) {
              this.core.metrics.agentForgotten(id);
              this.core.stats.delete(id);
              this.core.seenAt.delete(id);
            }
          }
        } catch (e) {
          this.core.o.log.warn({ err: (e as Error).message, node: id }, 'liveness update failed');
        }
      }
    } finally {
      this.sweeping = false;
    }
  }

  /** Stops the periodic sweep. */
  stop(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
  }
}

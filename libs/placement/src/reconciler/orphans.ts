import type { ResolvedOptions } from './options';
import type { Backoff, OrphanStop } from './records';
import type { ReconcilerNode } from './types';

/**
 * Orphan StopShards, sent beside the passes (never inside one): a pass
 * queues them and goes on; at most `orphanStopConcurrency` are in flight,
 * and a node whose stops fail is skipped for a while (docs/placement.md,
 * "Orphan shards").
 */
export class OrphanStops {
  /** Orphan stops queued (from `head` on) or in flight, by shard id. */
  private readonly queue: OrphanStop[] = [];
  private head = 0;
  private readonly pending = new Set<string>();
  private active = 0;
  /** Nodes whose orphan stops failed: skipped until notBeforeMs (doubling), or until they reconnect. */
  private readonly backoff = new Map<string, Backoff & { condition: string }>();
  private waiters: Array<() => void> = [];

  constructor(
    private readonly o: ResolvedOptions,
    /** The nodes of the latest fleet view. */
    private readonly nodes: () => readonly ReconcilerNode[],
  ) {}

  /** A node that went away since its stops failed is tried again at once when it is back. */
  noteConditions(nodes: readonly ReconcilerNode[]): void {
    for (const n of nodes) {
      const b = this.backoff.get(n.id);
      if (b && n.condition !== 'ready') b.condition = n.condition;
    }
  }

  isPending(shardId: string): boolean {
    return this.pending.has(shardId);
  }

  enqueue(job: OrphanStop): void {
    this.pending.add(job.shardId);
    this.queue.push(job);
  }

  /** Drops the queued stops (they belong to an old term); those in flight finish on their own. */
  reset(): void {
    for (let i = this.head; i < this.queue.length; i++) this.pending.delete(this.queue[i].shardId);
    this.queue.length = 0;
    this.head = 0;
    this.backoff.clear();
    this.notify();
  }

  /** Resolves once no orphan stop is queued or in flight (tests, shutdown). */
  settled(): Promise<void> {
    if (!this.pending.size) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Orphan stops queued or in flight. */
  pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Whether orphans on `node` may be told to stop now: it is connected, and
   * its earlier orphan stops did not fail recently (a node that reconnects
   * is tried again at once).
   */
  nodeOpen(node: ReconcilerNode | undefined, now: number): boolean {
    if (!node || node.condition !== 'ready') return false;
    const b = this.backoff.get(node.id);
    if (!b) return true;
    if (b.condition !== 'ready' || now >= b.notBeforeMs) return true;
    return false;
  }

  private noteNode(nodeId: string, ok: boolean): void {
    if (ok) {
      this.backoff.delete(nodeId);
      return;
    }
    const b = this.backoff.get(nodeId);
    // The stops of one round fail together: one failure per round doubles the wait.
    if (b && b.condition === 'ready' && this.o.now() < b.notBeforeMs) return;
    const failures = (b?.failures ?? 0) + 1;
    const delay = Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** Math.min(failures - 1, 30));
    this.backoff.set(nodeId, { failures, notBeforeMs: this.o.now() + delay, condition: 'ready' });
  }

  /** Starts queued orphan stops up to the concurrency bound; each finished one starts the next. */
  pump(): void {
    while (this.active < this.o.orphanStopConcurrency && this.head < this.queue.length) {
      const job = this.queue[this.head++];
      const node = this.nodes().find((n) => n.id === job.nodeId);
      if (this.o.fencingToken() !== job.token || !this.nodeOpen(node, this.o.now())) {
        // The node went away (or failed its stops) or the term ended while this waited: the next pass decides again.
        this.pending.delete(job.shardId);
        continue;
      }
      this.active++;
      void this.o.sink.stop(job.nodeId, job.shardId, 'orphan: no replica claims it', job.token).then(
        () => this.done(job, true),
        (e: unknown) => {
          if (!this.backoff.has(job.nodeId))
            this.o.log?.warn({ node: job.nodeId, shard: job.shardId, err: (e as Error).message }, 'orphan stop failed; the node is skipped for a while');
          this.done(job, false);
        },
      );
    }
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
    this.notify();
  }

  private done(job: OrphanStop, ok: boolean): void {
    this.active--;
    this.pending.delete(job.shardId);
    this.noteNode(job.nodeId, ok);
    this.pump();
  }

  private notify(): void {
    if (this.pending.size || !this.waiters.length) return;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

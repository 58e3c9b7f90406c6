/**
 * Tier 2 (docs/prefix.md): the precise KV index, `block hash → replicas`, kept
 * from each replica's KV events (vLLM `--kv-events-config`). Pure: the
 * router's subscriber feeds it decoded batches and performs the replays it
 * asks for.
 *
 * Per replica, batches must be applied in sequence-number order without a
 * hole. The replica's state machine:
 *
 * - `syncing`: nothing applied yet. Sequence 0 is applied and the replica is
 *   `synced`; a later first batch is a gap from 0 (the subscriber joined late).
 * - `synced`: the index holds exactly what the events said. The next
 *   sequence is applied; a higher one is a gap: the batch is held back and
 *   the caller must fetch [expected, …) from the replay endpoint; a lower one
 *   means the engine restarted, so its blocks are forgotten first.
 * - `replaying`: live batches are held until `replayed()` delivers the
 *   missing range; if the range is incomplete, or `replayFailed()` is called,
 *   the replica's blocks are dropped and it is `dropped`.
 * - `dropped`: the index does not answer for this replica (callers fall back
 *   to tier 1). An `AllBlocksCleared` event, or a restart (sequence back to
 *   0), makes the view exact again and the replica `synced`.
 */
export type KvEvent =
  | { type: 'BlockStored'; blockHashes: readonly bigint[]; parentBlockHash: bigint | null }
  | { type: 'BlockRemoved'; blockHashes: readonly bigint[] }
  | { type: 'AllBlocksCleared' };

export interface KvBatch {
  seq: number;
  events: readonly KvEvent[];
}

export type ReplicaSyncState = 'syncing' | 'synced' | 'replaying' | 'dropped';

/** What `offer` did; `gap` asks the caller to fetch batches from `from` on. */
export type OfferResult = { kind: 'applied' } | { kind: 'restart' } | { kind: 'gap'; from: number } | { kind: 'held' } | { kind: 'ignored' };

interface Replica {
  state: ReplicaSyncState;
  /** The next sequence number to apply. */
  expected: number;
  blocks: Set<bigint>;
  /** Live batches received while replaying, in arrival order. */
  held: KvBatch[];
  /** The replay under way is a join: the index holds nothing for the replica yet (first batches, or after a restart). */
  joining: boolean;
}

export interface KvIndexOptions {
  /** Live batches held during a replay before giving up on it. */
  maxHeldBatches?: number;
}

export class KvBlockIndex {
  private readonly byHash = new Map<bigint, Set<string>>();
  private readonly replicas = new Map<string, Replica>();
  private readonly maxHeld: number;
  /** Counters for metrics and tests. */
  readonly stats = { applied: 0, gaps: 0, replayed: 0, drops: 0, restarts: 0, partialJoins: 0 };

  constructor(opts: KvIndexOptions = {}) {
    this.maxHeld = opts.maxHeldBatches ?? 10_000;
  }

  state(replica: string): ReplicaSyncState | undefined {
    return this.replicas.get(replica)?.state;
  }

  /** True when the index answers for this replica. */
  usable(replica: string): boolean {
    return this.replicas.get(replica)?.state === 'synced';
  }

  /** Blocks the index holds for a replica. */
  blockCount(replica: string): number {
    return this.replicas.get(replica)?.blocks.size ?? 0;
  }

  /** Next sequence number expected from a replica. */
  expected(replica: string): number | undefined {
    return this.replicas.get(replica)?.expected;
  }

  /**
   * Joins a replica before its first batch arrives: the caller fetches the
   * replay from sequence 0 (or as far back as the engine still buffers) and
   * delivers it with `replayed`; live batches are held meanwhile. A router
   * that starts next to running engines thus knows their caches before its
   * first request instead of after their next event. A `dropped` replica may
   * join again the same way. False when the replica is known and not dropped.
   */
  join(replica: string): boolean {
    const r = this.replicas.get(replica);
    if (r && r.state !== 'dropped') return false;
    // A dropped replica holds nothing either: joining again is as safe as the first join.
    this.replicas.set(replica, { state: 'replaying', expected: 0, blocks: r?.blocks ?? new Set(), held: [], joining: true });
    return true;
  }

  offer(replica: string, batch: KvBatch): OfferResult {
    let r = this.replicas.get(replica);
    if (!r) {
      r = { state: 'syncing', expected: 0, blocks: new Set(), held: [], joining: false };
      this.replicas.set(replica, r);
    }
    if (r.state === 'replaying') {
      if (r.held.length >= this.maxHeld) {
        this.drop(replica, r);
        return this.offer(replica, batch);
      }
      r.held.push(batch);
      return { kind: 'held' };
    }
    let restarted = false;
    if (batch.seq < r.expected) {
      // PUB/SUB never repeats a batch: a lower number is a restarted engine with an empty cache.
      this.clear(replica, r);
      this.stats.restarts++;
      r.expected = 0;
      r.state = 'syncing';
      restarted = true;
    }
    if (r.state === 'dropped') return this.offerDropped(replica, r, batch);
    if (batch.seq === r.expected) {
      this.apply(replica, r, batch);
      r.state = 'synced';
      return restarted ? { kind: 'restart' } : { kind: 'applied' };
    }
    r.joining = r.state === 'syncing';
    r.state = 'replaying';
    r.held = [batch];
    this.stats.gaps++;
    return { kind: 'gap', from: r.expected };
  }

  /**
   * Delivers the replay of the range asked for (batches in order; ones
   * already applied are skipped). Returns the resulting state: `synced` when
   * the replay and the held batches join without a hole, else `dropped`.
   *
   * A join (the index holds nothing for the replica: a router that started
   * after the engine, or an engine that restarted) whose replay no longer
   * reaches back to the sequence asked for (the engine's buffer holds its
   * last `buffer_steps` batches only) starts from the oldest batch the
   * replay has: blocks stored before it and untouched since are missing from
   * the index, so it may under-report a replica, never over-report one. It
   * counts as `partialJoins`.
   */
  replayed(replica: string, batches: readonly KvBatch[]): ReplicaSyncState | undefined {
    const r = this.replicas.get(replica);
    if (!r || r.state !== 'replaying') return r?.state;
    const all = [...batches, ...r.held];
    if (r.joining && all.length > 0 && all[0].seq > r.expected) {
      r.expected = all[0].seq;
      this.stats.partialJoins++;
    }
    r.joining = false;
    for (const b of all) {
      if (b.seq < r.expected) continue;
      if (b.seq !== r.expected) {
        this.drop(replica, r);
        return r.state;
      }
      this.apply(replica, r, b);
      if (batches.includes(b)) this.stats.replayed++;
    }
    r.held = [];
    r.state = 'synced';
    return r.state;
  }

  /** The replay could not be had: forget the replica's blocks until its view is exact again. */
  replayFailed(replica: string): void {
    const r = this.replicas.get(replica);
    if (r && r.state === 'replaying') this.drop(replica, r);
  }

  /** Forgets a replica (it left the endpoint set, or its connection was replaced). */
  remove(replica: string): void {
    const r = this.replicas.get(replica);
    if (!r) return;
    this.clear(replica, r);
    this.replicas.delete(replica);
  }

  /**
   * Leading blocks of `hashes` each usable replica holds. Replicas not
   * usable (never synced, replaying, dropped) are absent: the caller treats
   * them with tier 1.
   */
  match(hashes: readonly bigint[]): Map<string, number> {
    const out = new Map<string, number>();
    for (let i = 0; i < hashes.length; i++) {
      const holders = this.byHash.get(hashes[i]);
      if (!holders) break;
      let any = false;
      for (const id of holders) {
        if ((i === 0 || out.get(id) === i) && this.usable(id)) {
          out.set(id, i + 1);
          any = true;
        }
      }
      if (!any) break;
    }
    return out;
  }

  private offerDropped(replica: string, r: Replica, batch: KvBatch): OfferResult {
    r.expected = batch.seq + 1;
    const clearedAt = batch.events.findIndex((e) => e.type === 'AllBlocksCleared');
    if (clearedAt < 0) return { kind: 'ignored' };
    // Everything after a clear is exact again.
    this.clear(replica, r);
    this.applyEvents(replica, r, batch.events.slice(clearedAt + 1));
    r.state = 'synced';
    this.stats.applied++;
    return { kind: 'applied' };
  }

  private drop(replica: string, r: Replica): void {
    r.joining = false;
    this.clear(replica, r);
    const last = r.held[r.held.length - 1];
    if (last) r.expected = last.seq + 1;
    r.held = [];
    r.state = 'dropped';
    this.stats.drops++;
  }

  private apply(replica: string, r: Replica, batch: KvBatch): void {
    this.applyEvents(replica, r, batch.events);
    r.expected = batch.seq + 1;
    this.stats.applied++;
  }

  private applyEvents(replica: string, r: Replica, events: readonly KvEvent[]): void {
    for (const ev of events) {
      if (ev.type === 'BlockStored') {
        for (const h of ev.blockHashes) {
          if (r.blocks.has(h)) continue;
          r.blocks.add(h);
          let set = this.byHash.get(h);
          if (!set) {
            set = new Set();
            this.byHash.set(h, set);
          }
          set.add(replica);
        }
      } else if (ev.type === 'BlockRemoved') {
        for (const h of ev.blockHashes) if (r.blocks.delete(h)) this.unlink(h, replica);
      } else {
        this.clear(replica, r);
      }
    }
  }

  private clear(replica: string, r: Replica): void {
    for (const h of r.blocks) this.unlink(h, replica);
    r.blocks.clear();
  }

  private unlink(h: bigint, replica: string): void {
    const set = this.byHash.get(h);
    if (!set) return;
    set.delete(replica);
    if (set.size === 0) this.byHash.delete(h);
  }
}

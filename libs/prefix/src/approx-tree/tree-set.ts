import { ApproxTree, type ApproxMatch } from './approx-tree';
import { chunkHashes, DEFAULT_CHUNK_CHARS } from './chunk-hash';

export interface ApproxTreeSetOptions {
  /** Characters per chunk (the tree's granularity). */
  chunkChars?: number;
  /** Estimated cache per replica, in characters, before its least recently sent chunks are evicted (`max_tree_size`, docs/prefix.md). */
  maxTreeSize?: number;
  /** Eviction runs at most this often, lazily on insert (ms; `eviction_interval`, docs/prefix.md). */
  evictionIntervalMs?: number;
}

/** What one insert changed: the model and the chunk hashes, for sharing with other routers. */
export interface ApproxInsert {
  model: string;
  tenant: string;
  hashes: number[];
}

/**
 * One `ApproxTree` per model, with its configured size limits. Time is passed in
 * (`now`, ms) so callers and tests own the clock; eviction runs lazily on the
 * first insert after `evictionIntervalMs` has passed, never on a timer.
 */
export class ApproxTreeSet {
  readonly chunkChars: number;
  readonly maxTreeSize: number;
  readonly evictionIntervalMs: number;
  private readonly trees = new Map<string, ApproxTree>();
  private lastEviction = -Infinity;
  /** Entries removed by eviction so far. */
  evicted = 0;

  constructor(opts: ApproxTreeSetOptions = {}) {
    this.chunkChars = opts.chunkChars ?? DEFAULT_CHUNK_CHARS;
    this.maxTreeSize = opts.maxTreeSize ?? 2_000_000;
    this.evictionIntervalMs = opts.evictionIntervalMs ?? 60_000;
    if (!Number.isInteger(this.chunkChars) || this.chunkChars < 1) throw new RangeError('chunkChars must be a positive integer');
    if (!(this.maxTreeSize >= this.chunkChars)) throw new RangeError('maxTreeSize must hold at least one chunk');
    if (!(this.evictionIntervalMs >= 0)) throw new RangeError('evictionIntervalMs must be ≥ 0');
  }

  hashes(text: string): number[] {
    return chunkHashes(text, this.chunkChars);
  }

  tree(model: string): ApproxTree | undefined {
    return this.trees.get(model);
  }

  models(): string[] {
    return [...this.trees.keys()];
  }

  /** Matches precomputed hashes; undefined when the model has no tree yet. */
  match(model: string, hashes: readonly number[]): ApproxMatch | undefined {
    return this.trees.get(model)?.match(hashes);
  }

  /** Matches counting only entries sent at or after `since` (ms); undefined when the model has no tree yet. */
  matchSince(model: string, hashes: readonly number[], since: number): ApproxMatch | undefined {
    return this.trees.get(model)?.matchSince(hashes, since);
  }

  insert(model: string, hashes: readonly number[], tenant: string, now: number): void {
    let t = this.trees.get(model);
    if (!t) {
      t = new ApproxTree();
      this.trees.set(model, t);
    }
    t.insert(hashes, tenant, now);
    if (now - this.lastEviction >= this.evictionIntervalMs) this.evictNow(now);
  }

  /** Runs eviction now on every model's tree. */
  evictNow(now: number): number {
    this.lastEviction = now;
    const max = Math.floor(this.maxTreeSize / this.chunkChars);
    let n = 0;
    for (const [model, t] of this.trees) {
      n += t.evict(max);
      if (t.nodeCount === 0) this.trees.delete(model);
    }
    this.evicted += n;
    return n;
  }

  /** Forgets a replica in every model (it left, or restarted with an empty cache). */
  removeTenant(tenant: string): void {
    for (const t of this.trees.values()) t.removeTenant(tenant);
  }

  /** Total (node, replica) entries over all models. */
  get entryCount(): number {
    let n = 0;
    for (const t of this.trees.values()) n += t.entryCount;
    return n;
  }
}

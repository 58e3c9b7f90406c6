import type { KvEventBus } from './kv-events';

/** One cached (full, hashed) prompt block. */
interface CacheEntry {
  hash: number;
  /** Sequences currently using the block; 0 = idle, evictable. */
  ref: number;
}

/**
 * KV block accounting plus vLLM-style automatic prefix caching.
 *
 * The pool has `numBlocks` physical blocks. A block is either held by running
 * sequences (`used`: private blocks plus cache entries with ref > 0), idle in
 * the prefix cache (ref = 0, still holding its KV, evicted LRU first when space
 * is needed), or free. Free capacity for a new allocation is therefore
 * `numBlocks - used`: idle cached blocks are reclaimed on demand, as in vLLM,
 * whose `kv_cache_usage_perc` also counts them as free.
 */
export class BlockManager {
  private used = 0;
  private readonly cache = new Map<number, CacheEntry>();
  /** Idle entries only, oldest first (Map keeps insertion order). */
  private readonly idle = new Map<number, CacheEntry>();
  /**
   * Blocks that were in use at a reset: no longer in the cache (no request
   * can hit them, no event names them), still referenced by their sequences
   * until released. A hash here may also be cached again meanwhile: a
   * release decrements one of the two, which keeps the counts exact since
   * references to equal blocks are interchangeable.
   */
  private readonly detached = new Map<number, CacheEntry[]>();

  constructor(
    readonly numBlocks: number,
    readonly blockSize: number,
    /** LRU capacity of the prefix cache in blocks; 0 disables caching. */
    readonly cacheCapacity: number,
    private readonly events: KvEventBus,
  ) {}

  get usedBlocks(): number {
    return this.used;
  }

  get cachedBlocks(): number {
    return this.cache.size;
  }

  /** Occupancy in [0, 1], as vllm:kv_cache_usage_perc reports it. */
  get usage(): number {
    return this.used / this.numBlocks;
  }

  /** Blocks available to a new allocation (free plus evictable idle ones). */
  get available(): number {
    return this.numBlocks - this.used;
  }

  /** Length of the run of `hashes` present in the cache, from the start. */
  lookup(hashes: number[], max: number): number {
    if (this.cacheCapacity === 0) return 0;
    let n = 0;
    while (n < max && n < hashes.length && this.cache.has(hashes[n])) n++;
    return n;
  }

  /** How many of the first `n` hashes are idle (they move to `used` when acquired). */
  idleAmong(hashes: number[], n: number): number {
    let k = 0;
    for (let i = 0; i < n; i++) if (this.idle.has(hashes[i])) k++;
    return k;
  }

  /** Takes a reference on the first `n` cached blocks (they must be present). */
  acquireCached(hashes: number[], n: number): void {
    for (let i = 0; i < n; i++) {
      const e = this.cache.get(hashes[i])!;
      if (e.ref++ === 0) {
        this.idle.delete(e.hash);
        this.used++;
      }
    }
  }

  /** Allocates `n` private blocks; false (and nothing taken) when they do not fit. */
  allocate(n: number): boolean {
    if (n <= 0) return true;
    if (this.numBlocks - this.used < n) return false;
    let overflow = this.used + this.idle.size + n - this.numBlocks;
    while (overflow-- > 0) this.evictOne();
    this.used += n;
    return true;
  }

  /** Returns `n` private blocks. */
  freePrivate(n: number): void {
    this.used -= n;
  }

  /** Drops a reference on cached blocks; an entry at ref 0 becomes idle (most recently used). */
  releaseCached(hashes: number[]): void {
    for (const h of hashes) {
      const ds = this.detached.get(h);
      if (ds) {
        const d = ds[ds.length - 1];
        if (--d.ref === 0) {
          this.used--;
          ds.pop();
          if (ds.length === 0) this.detached.delete(h);
        }
        continue;
      }
      const e = this.cache.get(h);
      if (!e) continue;
      if (--e.ref === 0) {
        this.used--;
        this.idle.set(h, e);
      }
    }
  }

  /**
   * Registers a sequence's freshly computed full prompt blocks. For each one
   * the caller's private block either becomes a cache entry, or (when an
   * equal block got cached meanwhile) is freed in favour of the cached copy.
   * Returns the hashes the sequence now references; blocks not cacheable (LRU
   * full of blocks in use) stay private and are not in the result.
   */
  insert(parent: number | null, hashes: number[], tokens: number[], tokenOffset: number): number[] {
    if (this.cacheCapacity === 0 || hashes.length === 0) return [];
    const referenced: number[] = [];
    let run: number[] = [];
    let runFrom = 0;
    const flush = (): void => {
      if (run.length > 0 && this.events.hasSubscribers) {
        const start = tokenOffset + runFrom * this.blockSize;
        this.events.push({
          type: 'BlockStored',
          block_hashes: run,
          parent_block_hash: runFrom === 0 ? parent : hashes[runFrom - 1],
          token_ids: tokens.slice(start, start + run.length * this.blockSize),
          block_size: this.blockSize,
          lora_id: null,
          medium: 'GPU',
          lora_name: null,
        });
      }
      run = [];
    };
    for (let i = 0; i < hashes.length; i++) {
      const h = hashes[i];
      const existing = this.cache.get(h);
      if (existing) {
        flush();
        if (existing.ref++ === 0) {
          this.idle.delete(h);
          this.used++;
        }
        this.used--; // our private copy is dropped
        referenced.push(h);
        continue;
      }
      if (this.cache.size >= this.cacheCapacity && !this.evictOne()) break;
      this.cache.set(h, { hash: h, ref: 1 });
      referenced.push(h);
      if (run.length === 0) runFrom = i;
      run.push(h);
    }
    flush();
    return referenced;
  }

  /**
   * Empties the prefix cache, as a restarted engine's is (vLLM's
   * reset_prefix_cache, which vLLM refuses while blocks are in use). Blocks
   * in use are detached rather than kept cached, so the cache holds exactly
   * what the AllBlocksCleared event says: nothing. Returns the idle blocks dropped.
   */
  reset(): number {
    const n = this.idle.size;
    for (const [h, e] of this.cache) {
      if (e.ref === 0) continue;
      const ds = this.detached.get(h);
      if (ds) ds.push(e);
      else this.detached.set(h, [e]);
    }
    this.cache.clear();
    this.idle.clear();
    this.events.push({ type: 'AllBlocksCleared' });
    return n;
  }

  private evictOne(): boolean {
    const first = this.idle.keys().next();
    if (first.done) return false;
    const h = first.value;
    this.idle.delete(h);
    this.cache.delete(h);
    this.events.push({ type: 'BlockRemoved', block_hashes: [h], medium: 'GPU' });
    return true;
  }
}

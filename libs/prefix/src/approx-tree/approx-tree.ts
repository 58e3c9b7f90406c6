/**
 * Tier 1 (docs/prefix.md): an estimate of which prefixes each replica holds in its
 * KV cache, built only from what was sent where. One tree per model.
 *
 * The tree is a trie over fixed-size character chunks whose nodes are named
 * by chained chunk hashes (`chunkHashes`): node i of a prompt is the hash of
 * its first i+1 chunks, so the trie's edges are implicit and a node is one
 * map entry. Each node records the replicas ("tenants") that were sent a
 * prompt through it, with the time they were last sent one.
 *
 * Invariant (prefix closure): if a tenant is on a node, it is on every
 * ancestor of that node. Each insert stamps its whole path with the next
 * number of a counter (whatever the caller's clock says) and appends the path
 * to the tenant's log, deepest node first. An entry's place in eviction order
 * is its latest appearance in the log (earlier ones are stale and skipped),
 * so an ancestor always comes after its descendants: evicting from the front
 * removes leaves first and never strands a descendant. (An append-only log
 * rather than a list whose entries move to the back on every insert: moving
 * each node of a conversation's path on every request cost more than the
 * rest of a scheduling decision. The log is compacted when stale items
 * outnumber live ones.)
 */
export interface ApproxMatch {
  /** Full chunks in the query. */
  chunks: number;
  /** Tenant → leading chunks of the query it holds (tenants with none are absent). */
  matched: Map<string, number>;
}

interface Entry {
  /** Last insert time (ms, the caller's clock), for matchSince. */
  at: number;
  /** The last insert's number (eviction order). */
  stamp: number;
  node: Node;
  /** False once evicted or removed. */
  live: boolean;
}

interface Node {
  /** Tenant → its last insert here. */
  tenants: Map<string, Entry>;
  /** Chunks from the root: 0 for a prompt's first chunk. */
  depth: number;
  hash: number;
}

/** One tenant's eviction order: (entry, stamp) items, oldest first from `head`; items whose stamp is no longer the entry's are stale. */
interface TenantLog {
  entries: Entry[];
  stamps: number[];
  head: number;
  /** Live entries (nodes the tenant is on). */
  live: number;
}

export class ApproxTree {
  private readonly nodes = new Map<number, Node>();
  private readonly logs = new Map<string, TenantLog>();
  private entries = 0;
  /** Inserts so far: the stamp of the next one. */
  private stamps = 0;
  /**
   * The last `match`'s walk: `path[0, pathDepth)` are the nodes of `pathOf`'s
   * leading hashes, valid while no node has been deleted since (`deletions`
   * unchanged). The insert after a routing decision is for the prompt just
   * matched, so it finds its nodes here instead of looking each up again in
   * the (large, cache-missing) node map.
   */
  private readonly path: Node[] = [];
  private pathOf: readonly number[] | undefined;
  private pathDepth = 0;
  private pathAt = 0;
  private deletions = 0;

  /** Distinct nodes (chunk prefixes) in the tree. */
  get nodeCount(): number {
    return this.nodes.size;
  }

  /** (node, tenant) pairs: the sum over tenants of their estimated cached chunks. */
  get entryCount(): number {
    return this.entries;
  }

  tenants(): string[] {
    return [...this.logs.keys()];
  }

  /** Chunks the tree believes `tenant` holds. */
  tenantChunks(tenant: string): number {
    return this.logs.get(tenant)?.live ?? 0;
  }

  /** Records that a prompt with these chained chunk hashes was sent to `tenant` at `now`. */
  insert(hashes: readonly number[], tenant: string, now: number): void {
    if (hashes.length === 0) return;
    const stamp = ++this.stamps;
    let log = this.logs.get(tenant);
    if (!log) {
      log = { entries: [], stamps: [], head: 0, live: 0 };
      this.logs.set(tenant, log);
    }
    const known = this.pathOf === hashes && this.pathAt === this.deletions ? this.pathDepth : 0;
    for (let i = hashes.length - 1; i >= 0; i--) {
      const h = hashes[i];
      let node = i < known ? this.path[i] : this.nodes.get(h);
      if (!node) {
        node = { tenants: new Map(), depth: i, hash: h };
        this.nodes.set(h, node);
      }
      let e = node.tenants.get(tenant);
      if (e) {
        e.at = now;
        e.stamp = stamp;
      } else {
        e = { at: now, stamp, node, live: true };
        node.tenants.set(tenant, e);
        this.entries++;
        log.live++;
      }
      log.entries.push(e);
      log.stamps.push(stamp);
    }
    if (log.entries.length - log.head > 4 * log.live + 1024) compact(log);
  }

  /** The longest prefix of `hashes` each tenant holds. Read-only. */
  match(hashes: readonly number[]): ApproxMatch {
    const matched = new Map<string, number>();
    // The path as far as the tree has it; by prefix closure a tenant's match is the deepest node it is on,
    // and the first node's tenants are all the tenants on the path: walk back up until each is placed.
    const path = this.path;
    let depth = 0;
    for (; depth < hashes.length; depth++) {
      const node = this.nodes.get(hashes[depth]);
      if (!node) break;
      path[depth] = node;
    }
    this.pathOf = hashes;
    this.pathDepth = depth;
    this.pathAt = this.deletions;
    if (depth > 0) {
      const all = path[0].tenants.size;
      for (let i = depth - 1; i >= 0 && matched.size < all; i--) {
        for (const t of path[i].tenants.keys()) if (!matched.has(t)) matched.set(t, i + 1);
      }
    }
    return { chunks: hashes.length, matched };
  }

  /**
   * Like `match`, counting only entries sent at or after `since` (ms): what
   * was routed recently, whether or not the engine has reported it yet.
   */
  matchSince(hashes: readonly number[], since: number): ApproxMatch {
    const matched = new Map<string, number>();
    for (let i = 0; i < hashes.length; i++) {
      const node = this.nodes.get(hashes[i]);
      if (!node) break;
      for (const [t, e] of node.tenants) if (e.at >= since) matched.set(t, i + 1);
    }
    return { chunks: hashes.length, matched };
  }

  /** Evicts each tenant's least recently sent chunks until it holds at most `maxChunksPerTenant`. Returns entries removed. */
  evict(maxChunksPerTenant: number): number {
    let removed = 0;
    for (const [tenant, log] of this.logs) {
      while (log.live > maxChunksPerTenant && log.head < log.entries.length) {
        const e = log.entries[log.head];
        if (current(e, log.stamps[log.head++])) {
          this.dropEntry(e, tenant);
          log.live--;
          removed++;
        }
      }
      if (log.live === 0) this.logs.delete(tenant);
      else if (log.head > 1024 && log.head * 2 > log.entries.length) compact(log);
    }
    return removed;
  }

  /** Forgets a tenant entirely (replica gone, or its cache was reset). */
  removeTenant(tenant: string): number {
    const log = this.logs.get(tenant);
    if (!log) return 0;
    const n = log.live;
    for (let i = log.head; i < log.entries.length; i++) if (current(log.entries[i], log.stamps[i])) this.dropEntry(log.entries[i], tenant);
    this.logs.delete(tenant);
    return n;
  }

  private dropEntry(e: Entry, tenant: string): void {
    e.live = false;
    const node = e.node;
    if (!node.tenants.delete(tenant)) return;
    this.entries--;
    if (node.tenants.size === 0) {
      this.nodes.delete(node.hash);
      this.deletions++;
    }
  }
}

/** True when this log item is the entry's latest appearance. */
function current(e: Entry, stamp: number): boolean {
  return e.live && e.stamp === stamp;
}

/** Drops a log's stale items and its consumed front. */
function compact(log: TenantLog): void {
  const entries: Entry[] = [];
  const stamps: number[] = [];
  for (let i = log.head; i < log.entries.length; i++) {
    if (current(log.entries[i], log.stamps[i])) {
      entries.push(log.entries[i]);
      stamps.push(log.stamps[i]);
    }
  }
  log.entries = entries;
  log.stamps = stamps;
  log.head = 0;
}

/**
 * Tier 1 (plan §7.5): an estimate of which prefixes each replica holds in its
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
 * number of a counter (whatever the caller's clock says), so an ancestor's
 * stamp is never older than a descendant's; eviction removes a tenant's
 * entries oldest stamp first, deeper first among equal stamps, so it removes
 * leaves first and never strands a descendant. (Entries are not kept in a moving LRU list: a
 * conversation's next turn re-sends its whole path, and moving every node to
 * the back of a list on every request cost more than the rest of a
 * scheduling decision; eviction sorts instead, once per eviction interval.)
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
  /** The insert's number (eviction order). */
  stamp: number;
}

interface Node {
  /** Tenant → its last insert here. */
  tenants: Map<string, Entry>;
  /** Chunks from the root: 0 for a prompt's first chunk. */
  depth: number;
}

export class ApproxTree {
  private readonly nodes = new Map<number, Node>();
  /** Per tenant, the nodes it is on. */
  private readonly held = new Map<string, Set<number>>();
  private entries = 0;
  /** Inserts so far: the stamp of the next one. */
  private stamps = 0;

  /** Distinct nodes (chunk prefixes) in the tree. */
  get nodeCount(): number {
    return this.nodes.size;
  }

  /** (node, tenant) pairs: the sum over tenants of their estimated cached chunks. */
  get entryCount(): number {
    return this.entries;
  }

  tenants(): string[] {
    return [...this.held.keys()];
  }

  /** Chunks the tree believes `tenant` holds. */
  tenantChunks(tenant: string): number {
    return this.held.get(tenant)?.size ?? 0;
  }

  /** Records that a prompt with these chained chunk hashes was sent to `tenant` at `now`. */
  insert(hashes: readonly number[], tenant: string, now: number): void {
    if (hashes.length === 0) return;
    const stamp = ++this.stamps;
    let held = this.held.get(tenant);
    if (!held) {
      held = new Set();
      this.held.set(tenant, held);
    }
    for (let i = 0; i < hashes.length; i++) {
      const h = hashes[i];
      let node = this.nodes.get(h);
      if (!node) {
        node = { tenants: new Map(), depth: i };
        this.nodes.set(h, node);
      }
      const e = node.tenants.get(tenant);
      if (e) {
        e.at = now;
        e.stamp = stamp;
      } else {
        node.tenants.set(tenant, { at: now, stamp });
        this.entries++;
        held.add(h);
      }
    }
  }

  /** The longest prefix of `hashes` each tenant holds. Read-only. */
  match(hashes: readonly number[]): ApproxMatch {
    const matched = new Map<string, number>();
    // The path as far as the tree has it; by prefix closure a tenant's match is the deepest node it is on,
    // and the first node's tenants are all the tenants on the path: walk back up until each is placed.
    const path: Node[] = [];
    for (let i = 0; i < hashes.length; i++) {
      const node = this.nodes.get(hashes[i]);
      if (!node) break;
      path.push(node);
    }
    if (path.length > 0) {
      const all = path[0].tenants.size;
      for (let i = path.length - 1; i >= 0 && matched.size < all; i--) {
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
    for (const [tenant, held] of this.held) {
      const excess = held.size - maxChunksPerTenant;
      if (excess > 0) {
        const entries: Array<{ h: number; stamp: number; depth: number }> = [];
        for (const h of held) {
          const node = this.nodes.get(h)!;
          entries.push({ h, stamp: node.tenants.get(tenant)!.stamp, depth: node.depth });
        }
        entries.sort((a, b) => a.stamp - b.stamp || b.depth - a.depth);
        for (let i = 0; i < excess; i++) {
          held.delete(entries[i].h);
          this.dropEntry(entries[i].h, tenant);
        }
        removed += excess;
      }
      if (held.size === 0) this.held.delete(tenant);
    }
    return removed;
  }

  /** Forgets a tenant entirely (replica gone, or its cache was reset). */
  removeTenant(tenant: string): number {
    const held = this.held.get(tenant);
    if (!held) return 0;
    for (const h of held) this.dropEntry(h, tenant);
    this.held.delete(tenant);
    return held.size;
  }

  private dropEntry(h: number, tenant: string): void {
    const node = this.nodes.get(h);
    if (!node || !node.tenants.delete(tenant)) return;
    this.entries--;
    if (node.tenants.size === 0) this.nodes.delete(h);
  }
}

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
 * ancestor of that node. Inserting touches the whole path, deepest node
 * first, so in each tenant's LRU order an ancestor always comes after its
 * descendants; evicting from the LRU front therefore removes leaves first
 * and never strands a descendant.
 */
export interface ApproxMatch {
  /** Full chunks in the query. */
  chunks: number;
  /** Tenant → leading chunks of the query it holds (tenants with none are absent). */
  matched: Map<string, number>;
}

interface Node {
  /** Tenant → last insert time (ms). */
  tenants: Map<string, number>;
}

export class ApproxTree {
  private readonly nodes = new Map<number, Node>();
  /** Per tenant, its node hashes in LRU order (front = least recently sent). */
  private readonly lru = new Map<string, Map<number, true>>();
  private entries = 0;

  /** Distinct nodes (chunk prefixes) in the tree. */
  get nodeCount(): number {
    return this.nodes.size;
  }

  /** (node, tenant) pairs: the sum over tenants of their estimated cached chunks. */
  get entryCount(): number {
    return this.entries;
  }

  tenants(): string[] {
    return [...this.lru.keys()];
  }

  /** Chunks the tree believes `tenant` holds. */
  tenantChunks(tenant: string): number {
    return this.lru.get(tenant)?.size ?? 0;
  }

  /** Records that a prompt with these chained chunk hashes was sent to `tenant` at `now`. */
  insert(hashes: readonly number[], tenant: string, now: number): void {
    if (hashes.length === 0) return;
    let order = this.lru.get(tenant);
    if (!order) {
      order = new Map();
      this.lru.set(tenant, order);
    }
    for (let i = hashes.length - 1; i >= 0; i--) {
      const h = hashes[i];
      let node = this.nodes.get(h);
      if (!node) {
        node = { tenants: new Map() };
        this.nodes.set(h, node);
      }
      if (!node.tenants.has(tenant)) this.entries++;
      node.tenants.set(tenant, now);
      order.delete(h);
      order.set(h, true);
    }
  }

  /** The longest prefix of `hashes` each tenant holds. Read-only. */
  match(hashes: readonly number[]): ApproxMatch {
    const matched = new Map<string, number>();
    for (let i = 0; i < hashes.length; i++) {
      const node = this.nodes.get(hashes[i]);
      if (!node) break;
      for (const t of node.tenants.keys()) matched.set(t, i + 1);
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
      for (const [t, at] of node.tenants) if (at >= since) matched.set(t, i + 1);
    }
    return { chunks: hashes.length, matched };
  }

  /** Evicts each tenant's least recently sent chunks until it holds at most `maxChunksPerTenant`. Returns entries removed. */
  evict(maxChunksPerTenant: number): number {
    let removed = 0;
    for (const [tenant, order] of this.lru) {
      while (order.size > maxChunksPerTenant) {
        const h = order.keys().next().value as number;
        order.delete(h);
        this.dropEntry(h, tenant);
        removed++;
      }
      if (order.size === 0) this.lru.delete(tenant);
    }
    return removed;
  }

  /** Forgets a tenant entirely (replica gone, or its cache was reset). */
  removeTenant(tenant: string): number {
    const order = this.lru.get(tenant);
    if (!order) return 0;
    for (const h of order.keys()) this.dropEntry(h, tenant);
    this.lru.delete(tenant);
    return order.size;
  }

  private dropEntry(h: number, tenant: string): void {
    const node = this.nodes.get(h);
    if (!node || !node.tenants.delete(tenant)) return;
    this.entries--;
    if (node.tenants.size === 0) this.nodes.delete(h);
  }
}

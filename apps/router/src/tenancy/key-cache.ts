import type { Principal } from '@llmgw/contracts';
import type { KeyCacheInvalidation } from '@llmgw/stores';

interface Entry {
  principal: Principal | null;
  /** Fresh until then; a stale positive entry may still serve while accounting is unreachable. */
  freshUntil: number;
}

/**
 * Key hash → resolved principal (or a cached refusal). Entries are dropped
 * when anything on their chain changes (invalidation events), and expire
 * after a TTL as a safety net. Lookups are one map read.
 */
export class KeyCache {
  private readonly map = new Map<string, Entry>();

  constructor(private readonly ttlMs: number, private readonly negativeTtlMs: number, private readonly maxEntries = 100_000) {}

  /** `fresh` when usable as is; `stale` when expired but kept for outages; undefined when unknown. */
  get(hash: string, now: number): { principal: Principal | null; fresh: boolean } | undefined {
    const e = this.map.get(hash);
    if (!e) return undefined;
    return { principal: e.principal, fresh: now < e.freshUntil };
  }

  set(hash: string, principal: Principal | null, now: number): void {
    if (this.map.size >= this.maxEntries && !this.map.has(hash)) {
      // Drop the oldest insertion; a re-resolve is only a cache miss.
      const first = this.map.keys().next().value;
      if (first !== undefined) this.map.delete(first);
    }
    this.map.set(hash, { principal, freshUntil: now + (principal ? this.ttlMs : this.negativeTtlMs) });
  }

  delete(hash: string): void {
    this.map.delete(hash);
  }

  /** Drops every principal whose chain includes the scope; returns how many. */
  invalidate(ev: KeyCacheInvalidation): number {
    let n = 0;
    for (const [hash, e] of this.map) {
      const p = e.principal;
      const hit =
        ev.scopeType === 'all' ||
        (p !== null &&
          ((ev.scopeType === 'key' && p.keyId === ev.scopeId) ||
            (ev.scopeType === 'project' && p.projectId === ev.scopeId) ||
            (ev.scopeType === 'team' && p.teamId === ev.scopeId) ||
            (ev.scopeType === 'org' && p.orgId === ev.scopeId)));
      if (hit) {
        this.map.delete(hash);
        n++;
      }
    }
    return n;
  }

  get size(): number {
    return this.map.size;
  }
}

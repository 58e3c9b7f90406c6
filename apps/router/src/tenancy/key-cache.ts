import type { Principal } from '@llmgw/contracts';
import type { KeyCacheInvalidation } from '@llmgw/stores';

/**
 * Where an entry's answer came from: accounting (`ResolveKey`), the key's
 * published record (accounting unreachable), or nowhere (`none`: accounting
 * unreachable and no record; the key cannot be verified, a 503).
 */
export type EntrySource = 'accounting' | 'record' | 'none';

export interface CacheEntry {
  /** The principal, or null for a refusal (unknown, revoked, expired; always null for `none`). */
  principal: Principal | null;
  source: EntrySource;
  /** Fresh until then; a stale entry is still served while it is revalidated (docs/accounting.md). */
  freshUntil: number;
  /** No refresh before then: set after a failed one (backoff); 0 = any time. */
  retryAt: number;
  /** Failed refreshes in a row (the backoff's exponent). */
  failures: number;
}

/**
 * Key hash → resolved principal (or a cached refusal). Entries are dropped
 * when anything on their chain changes (invalidation events), and expire
 * after a TTL as a safety net. Lookups are one map read.
 */
export class KeyCache {
  private readonly map = new Map<string, CacheEntry>();
  private gen = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly negativeTtlMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  /** Bumped by every invalidation: a refresh started before one must not store what it read. */
  get generation(): number {
    return this.gen;
  }

  /** `fresh` when usable as is; a stale entry is served while revalidated; undefined when unknown. */
  get(hash: string, now: number): (CacheEntry & { fresh: boolean }) | undefined {
    const e = this.map.get(hash);
    if (!e) return undefined;
    return { ...e, fresh: now < e.freshUntil };
  }

  /** Accounting's answer: fresh for the TTL (`cache_ttl`, or `negative_cache_ttl` for a refusal). */
  set(hash: string, principal: Principal | null, now: number): void {
    this.put(hash, { principal, source: 'accounting', freshUntil: now + (principal ? this.ttlMs : this.negativeTtlMs), retryAt: 0, failures: 0 });
  }

  /** What a failed refresh leaves: stale at once, not refreshed again before `retryAt`. */
  setFailed(hash: string, e: Omit<CacheEntry, 'freshUntil'>): void {
    this.put(hash, { ...e, freshUntil: 0 });
  }

  private put(hash: string, e: CacheEntry): void {
    if (this.map.size >= this.maxEntries && !this.map.has(hash)) {
      // Drop the oldest insertion; a re-resolve is only a cache miss.
      const first = this.map.keys().next().value;
      if (first !== undefined) this.map.delete(first);
    }
    this.map.set(hash, e);
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
    // Even when nothing was cached: a refresh in flight may be about to store the old state.
    this.gen++;
    return n;
  }

  get size(): number {
    return this.map.size;
  }
}

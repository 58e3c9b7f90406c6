import type { Principal } from '@llmgw/contracts';
import { LlmgwError, isLlmgwError } from '@llmgw/errors';
import type { CacheEntry, KeyCache } from './key-cache';

/** How a lookup was answered: from a fresh entry, a stale one (being revalidated), a published record, or not at all. */
export type LookupResult = 'hit' | 'negative' | 'miss' | 'stale' | 'record' | 'unverified';
/** How one `ResolveKey` call to accounting went. */
export type ResolveResult = 'ok' | 'not_found' | 'failed';

export interface KeyResolutionOptions {
  cache: KeyCache;
  /** Accounting's `ResolveKey`: the principal; LLMGW_ERR_NOT_FOUND refuses the key; any other failure = accounting could not answer. */
  resolve(hash: string): Promise<Principal>;
  /** The key's published record: its principal, null for a revoked key, undefined when there is none (or it cannot be read). */
  published?(hash: string): Promise<Principal | null | undefined>;
  now(): number;
  /** Wait before refreshing a key again after a failed refresh, ms; doubles per failure in a row, up to `maxRetryMs`. */
  retryMs: number;
  maxRetryMs: number;
  onLookup?(r: LookupResult): void;
  onResolve?(r: ResolveResult): void;
}

/**
 * The router's key lookup (docs/accounting.md, "The request path"): a fresh
 * cache entry answers at once; a stale one answers too while one refresh per
 * key runs in the background (stale-while-revalidate). When accounting cannot
 * answer, the last answer stands, else the key's published record, else 503;
 * the next refresh of that key waits `retryMs` (doubling), and for `retryMs`
 * after any failure a key not in the cache is answered from its record without
 * asking accounting — so during an outage no request waits the resolve timeout
 * except the one that finds it out, once per interval.
 */
export class KeyResolution {
  private readonly inflight = new Map<string, Promise<Principal | null>>();
  /** Until then accounting counts as unreachable (its last call failed). */
  private downUntil = 0;

  constructor(private readonly o: KeyResolutionOptions) {}

  /** The key's principal, null when refused; throws LLMGW_ERR_UNAVAILABLE when it cannot be verified. */
  async lookup(hash: string): Promise<Principal | null> {
    const at = this.o.now();
    const e = this.o.cache.get(hash, at);
    if (e?.fresh) {
      this.o.onLookup?.(e.principal ? 'hit' : 'negative');
      return e.principal;
    }
    if (e && e.source !== 'none') {
      if (this.due(hash, e, at)) void this.refresh(hash).catch(() => undefined);
      this.o.onLookup?.(e.source === 'record' ? 'record' : 'stale');
      return e.principal;
    }
    if (e && at < e.retryAt && !this.inflight.has(hash)) {
      this.o.onLookup?.('unverified');
      throw unverifiable();
    }
    this.o.onLookup?.('miss');
    return this.refresh(hash);
  }

  /** Whether accounting counts as unreachable now (tests, metrics). */
  accountingDown(at = this.o.now()): boolean {
    return at < this.downUntil;
  }

  private due(hash: string, e: CacheEntry, at: number): boolean {
    return !this.inflight.has(hash) && at >= e.retryAt && at >= this.downUntil;
  }

  /** One refresh per key at a time; callers share it. */
  private refresh(hash: string): Promise<Principal | null> {
    let p = this.inflight.get(hash);
    if (!p) {
      p = this.run(hash).finally(() => this.inflight.delete(hash));
      this.inflight.set(hash, p);
    }
    return p;
  }

  private async run(hash: string): Promise<Principal | null> {
    // Accounting failed a moment ago: the record answers now rather than another wait for it to fail.
    if (this.accountingDown()) return this.fallback(hash);
    const gen = this.o.cache.generation;
    let principal: Principal | null;
    try {
      principal = await this.o.resolve(hash);
      this.o.onResolve?.('ok');
    } catch (e) {
      if (!(isLlmgwError(e) && e.code === 'LLMGW_ERR_NOT_FOUND')) {
        this.o.onResolve?.('failed');
        this.downUntil = this.o.now() + this.o.retryMs;
        return this.fallback(hash, e);
      }
      this.o.onResolve?.('not_found');
      principal = null;
    }
    this.downUntil = 0;
    // An invalidation while the call was out: what it read may be the old state; answer it, cache nothing.
    if (gen === this.o.cache.generation) this.o.cache.set(hash, principal, this.o.now());
    return principal;
  }

  /**
   * Accounting could not answer: a tombstone refuses the key; otherwise the
   * last answer from accounting stands, else the published record, else 503.
   * What is served is cached stale, not refreshed again before the backoff.
   */
  private async fallback(hash: string, cause?: unknown): Promise<Principal | null> {
    const rec = this.o.published ? await this.o.published(hash).catch(() => undefined) : undefined;
    const at = this.o.now();
    const prev = this.o.cache.get(hash, at);
    const failures = (prev?.failures ?? 0) + 1;
    const retryAt = at + Math.min(this.o.maxRetryMs, this.o.retryMs * 2 ** (failures - 1));
    let kept: Pick<CacheEntry, 'principal' | 'source'>;
    if (rec === null) kept = { principal: null, source: 'record' };
    else if (prev?.source === 'accounting') kept = { principal: prev.principal, source: 'accounting' };
    else if (rec) kept = { principal: rec, source: 'record' };
    else if (prev?.source === 'record') kept = { principal: prev.principal, source: 'record' };
    else kept = { principal: null, source: 'none' };
    this.o.cache.setFailed(hash, { ...kept, retryAt, failures });
    if (kept.source === 'none') throw unverifiable(cause);
    return kept.principal;
  }
}

function unverifiable(cause?: unknown): LlmgwError {
  return new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'cannot verify the API key right now (accounting unreachable)', { retryAfterSeconds: 1, cause });
}

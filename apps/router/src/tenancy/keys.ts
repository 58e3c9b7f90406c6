import { AccountingClient, principalFromWire } from '@llmgw/accounting-rpc';
import type { Principal } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import type { Logger } from '@llmgw/observability';
import { clientTls } from '@llmgw/service';
import { principalOfRecord, type AccountingStores } from '@llmgw/stores';
import { bearerToken, hashApiKey } from '@llmgw/tenancy';
import { KeyCache } from './key-cache';
import { KeyResolution } from './key-resolution';
import type { TenancyMetrics } from './metrics';
import type { TenancyConfig, TenancyDeps } from './types';

/** First wait before a key whose refresh failed is refreshed again; doubles per failure up to the max. */
const RESOLVE_RETRY_MS = 1_000;
const RESOLVE_MAX_RETRY_MS = 4_000;
/** Longest a published-record read may take (Redis may be down too). */
const RECORD_TIMEOUT_MS = 500;

export interface ApiKeysOptions {
  cfg: TenancyConfig;
  stores: Pick<AccountingStores, 'publishedKeys' | 'keyCacheBus'>;
  /** Replaces the accounting KeyResolver (tests). */
  resolve?: (keyHash: string) => Promise<Principal>;
  dependency?: TenancyDeps['dependency'];
  now: () => number;
  metrics: Pick<TenancyMetrics, 'keyCache' | 'keyResolve' | 'rejected'>;
  log: Logger;
  logFailure(obj: object, msg: string): void;
}

/**
 * Bearer key → SHA-256 → in-memory cache, read through to accounting on a
 * miss, revalidated in the background when stale, dropped on invalidation,
 * and the key's published record while accounting cannot answer
 * (key-resolution.ts, docs/accounting.md).
 */
export class ApiKeys {
  /** Resolves once the invalidation subscription is up (or has failed: cache_ttl then bounds staleness). */
  readonly ready: Promise<void>;
  private readonly keys: KeyResolution;
  private readonly resolver?: AccountingClient;

  constructor(private readonly o: ApiKeysOptions) {
    const t = o.cfg.tenancy;
    const cache = new KeyCache(t.cache_ttl, t.negative_cache_ttl);
    const tls = clientTls(t.accounting_tls, 'tenancy.accounting_tls');
    this.resolver = o.resolve
      ? undefined
      : t.accounting_address
        ? new AccountingClient({ address: t.accounting_address, tls, dependency: o.dependency?.('accounting', { address: t.accounting_address }) })
        : undefined;
    if (!o.resolve && !this.resolver) throw new Error('tenancy.enabled needs tenancy.accounting_address (the accounting KeyResolver)');
    const resolver = this.resolver;
    const resolveWire =
      o.resolve ?? (async (hash: string) => principalFromWire(await resolver!.resolveKey(hash, { deadlineMs: t.resolve_timeout }), o.cfg.default_band));
    const published = o.stores.publishedKeys;
    this.keys = new KeyResolution({
      cache,
      resolve: resolveWire,
      // Read only when accounting cannot answer (docs/accounting.md, "When accounting is unreachable").
      published: published
        ? async (hash) => {
            try {
              const rec = await withTimeout(published.get(hash), Math.min(t.resolve_timeout, RECORD_TIMEOUT_MS));
              return rec ? principalOfRecord(rec, o.cfg.default_band) : undefined;
            } catch (e) {
              o.logFailure({ err: (e as Error).message }, 'published key record unreadable');
              return undefined;
            }
          }
        : undefined,
      now: o.now,
      retryMs: RESOLVE_RETRY_MS,
      maxRetryMs: RESOLVE_MAX_RETRY_MS,
      onLookup: (result) => o.metrics.keyCache.inc({ result }),
      onResolve: (result) => o.metrics.keyResolve.inc({ result }),
    });
    this.ready = (async () => {
      try {
        await o.stores.keyCacheBus.subscribe((ev) => {
          const n = cache.invalidate(ev);
          if (n) o.log.debug({ ev, dropped: n }, 'key cache invalidated');
        });
      } catch (e) {
        o.log.warn({ err: (e as Error).message }, 'key-cache invalidation subscription failed; relying on cache_ttl');
      }
    })();
  }

  /** The principal of a bearer key; 401 when missing, unknown, revoked or expired. */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const token = bearerToken(authorization);
    if (!token) {
      this.o.metrics.rejected.inc({ reason: 'auth' });
      throw new LlmgwError('LLMGW_ERR_AUTH_MISSING', 'You didn\'t provide an API key. Send "Authorization: Bearer sk-llmgw-…".');
    }
    await this.ready;
    const p = await this.keys.lookup(hashApiKey(token));
    if (!p || (p.expiresAt !== undefined && p.expiresAt <= this.o.now())) {
      this.o.metrics.rejected.inc({ reason: 'auth' });
      throw new LlmgwError('LLMGW_ERR_AUTH_INVALID', 'Incorrect API key provided (unknown, revoked or expired).');
    }
    return p;
  }

  close(): void {
    this.resolver?.close();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

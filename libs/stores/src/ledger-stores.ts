import type { Redis } from 'ioredis';
import type { CounterReservation, LimitCounters } from './counters';
import { MemoryLimitCounters } from './counters-memory';
import { RedisLimitCounters } from './counters-redis';
import { type KeyCacheBus, MemoryKeyCacheBus, RedisKeyCacheBus } from './key-cache-bus';
import { type LedgerRecord, type UsageLedger, encodeLedgerRecord } from './ledger';
import { MemoryUsageLedger } from './ledger-memory';
import { RedisUsageLedger } from './ledger-redis';
import { MemoryPublishedKeys, type PublishedKeys, RedisPublishedKeys } from './published-keys';
import type { ContractLog } from './redis-contracts';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

/** The stores accounting and the router's tenancy share. */
export interface AccountingStores {
  counters: LimitCounters;
  ledger: UsageLedger;
  keyCacheBus: KeyCacheBus;
  /** Every key's published record: accounting writes, routers read while accounting cannot answer (absent: not published). */
  publishedKeys?: PublishedKeys;
  /**
   * `counters.settle(r, actual, nowMs)` and `ledger.append(rec)` in one round trip, both or
   * neither; resolves with the ledger entry id once the record is in the ledger. Present
   * where counters and ledger live on one server (Redis).
   */
  settleAndAppend?(r: CounterReservation, actual: { tokens: number; micros: number }, nowMs: number, rec: LedgerRecord): Promise<string>;
}

const embedded = new Map<string, AccountingStores>();

/**
 * The process-wide in-process stores, by name. In embedded mode (no Redis)
 * accounting and every in-process router call this with the same name and so
 * share one set of counters, one ledger and one bus.
 */
export function inProcessAccountingStores(name = 'default'): AccountingStores {
  let s = embedded.get(name);
  if (!s) {
    s = {
      counters: new MemoryLimitCounters(),
      ledger: new MemoryUsageLedger(),
      keyCacheBus: new MemoryKeyCacheBus(),
      publishedKeys: new MemoryPublishedKeys(),
    };
    embedded.set(name, s);
  }
  return s;
}

/**
 * Opens the extra connection a store needs (the service host's `ctx.redis`,
 * which also closes it): `subscriber` for pub/sub, `blocking` for blocking
 * stream reads. Without it a store duplicates its command client and closes
 * the duplicate itself.
 */
export type OpenRedis = (purpose: string, kind: 'subscriber' | 'blocking') => Promise<Redis>;

/** The Redis-backed stores; the caller owns and closes `redis` (and what `open` opens). */
export function redisAccountingStores(
  redis: Redis,
  prefix = DEFAULT_REDIS_KEY_PREFIX,
  opts: { ledgerMaxLen?: number; log?: ContractLog; open?: OpenRedis } = {},
): AccountingStores {
  const counters = new RedisLimitCounters(redis, prefix);
  const ledger = new RedisUsageLedger(redis, prefix, { maxLen: opts.ledgerMaxLen, log: opts.log, open: opts.open });
  return {
    counters,
    ledger,
    keyCacheBus: new RedisKeyCacheBus(redis, prefix, opts.log, opts.open),
    publishedKeys: new RedisPublishedKeys(redis, prefix, opts.log),
    settleAndAppend: (r, actual, nowMs, rec) => counters.settleAndAppend(r, actual, nowMs, ledger.stream, ledger.maxLen, encodeLedgerRecord(rec)),
  };
}

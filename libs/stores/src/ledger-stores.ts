import type { Redis } from 'ioredis';
import type { LimitCounters } from './counters';
import { MemoryLimitCounters } from './counters-memory';
import { RedisLimitCounters } from './counters-redis';
import { type KeyCacheBus, MemoryKeyCacheBus, RedisKeyCacheBus } from './key-cache-bus';
import type { UsageLedger } from './ledger';
import { MemoryUsageLedger } from './ledger-memory';
import { RedisUsageLedger } from './ledger-redis';
import type { ContractLog } from './redis-contracts';

/** The three stores accounting and the router's tenancy share. */
export interface AccountingStores {
  counters: LimitCounters;
  ledger: UsageLedger;
  keyCacheBus: KeyCacheBus;
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
    s = { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() };
    embedded.set(name, s);
  }
  return s;
}

/** The Redis-backed stores; the caller owns and closes `redis`. */
export function redisAccountingStores(redis: Redis, prefix = 'llmgw:', opts: { ledgerMaxLen?: number; log?: ContractLog } = {}): AccountingStores {
  return {
    counters: new RedisLimitCounters(redis, prefix),
    ledger: new RedisUsageLedger(redis, prefix, { maxLen: opts.ledgerMaxLen, log: opts.log }),
    keyCacheBus: new RedisKeyCacheBus(redis, prefix, opts.log),
  };
}

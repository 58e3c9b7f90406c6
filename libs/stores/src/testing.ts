import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { LedgerRecord } from './ledger';

/** A test's connection to the shared test Redis (127.0.0.1:6379), and a key prefix of its own. */
export interface TestRedis {
  readonly redis: Redis;
  /** `test:<uuid>:`: every key the test writes starts with it. */
  readonly prefix: string;
  /** Deletes the test's keys and closes the connection (the spec's afterAll). */
  close(): Promise<void>;
}

/** Opens a connection to the shared test Redis; the spec calls close() in its afterAll. */
export function openTestRedis(): TestRedis {
  const prefix = `test:${randomUUID()}:`;
  const redis = new Redis({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: 1 });
  return {
    redis,
    prefix,
    async close() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    },
  };
}

/** A valid usage record numbered `i` (its ids, token counts and cost follow from i). */
export function sampleLedgerRecord(i: number): LedgerRecord {
  return {
    recordId: `rec-${i}`,
    requestId: `req-${i}`,
    ts: 1_800_000_000_000 + i,
    keyId: 'k1',
    projectId: 'p1',
    model: 'm',
    servedModel: 'm',
    status: 200,
    promptTokens: i,
    completionTokens: 2 * i,
    cachedTokens: 0,
    durationMs: 10,
    costMicros: 3 * i,
  };
}

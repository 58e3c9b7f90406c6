import { randomUUID } from 'node:crypto';
import { Counter, Histogram, Registry } from 'prom-client';
import { createLogger } from '@llmgw/observability';
import { waitUntil } from '@llmgw/contracts/wait';
import { MemoryUsageLedger, RedisUsageLedger, type LedgerRecord, type UsageLedger } from '@llmgw/stores';
import { openTestRedis, sampleLedgerRecord } from '@llmgw/stores/testing';
import { UsageIngester } from './ingest';
import type { UsageStore } from './usage-store';

const testRedis = openTestRedis();
const { redis, prefix } = testRedis;

afterAll(() => testRedis.close());

const rec = sampleLedgerRecord;

/** The ledger, counting the reads the ingester makes, how many of them block, and how many have answered. */
function counted(inner: UsageLedger): UsageLedger & { reads: number; blocking: number; answered: number } {
  const c = {
    reads: 0,
    blocking: 0,
    answered: 0,
    append: (r: LedgerRecord) => inner.append(r),
    ensureGroup: () => inner.ensureGroup(),
    read: async (consumer: string, count: number, blockMs: number) => {
      c.reads++;
      if (blockMs > 0) c.blocking++;
      const got = await inner.read(consumer, count, blockMs);
      c.answered++;
      return got;
    },
    readOwnPending: (consumer: string, count: number) => inner.readOwnPending(consumer, count),
    claimStale: (consumer: string, minIdleMs: number, count: number) => inner.claimStale(consumer, minIdleMs, count),
    ack: (ids: string[]) => inner.ack(ids),
    depth: () => inner.depth(),
    close: () => inner.close(),
  };
  return c;
}

/** A usage store that keeps each batch it is given. */
function batches(): UsageStore & { got: number[][] } {
  const got: number[][] = [];
  return { got, insertBatch: async (records: LedgerRecord[]) => (got.push(records.map((r) => r.promptTokens)), records.length) } as unknown as UsageStore & {
    got: number[][];
  };
}

function ingester(ledger: UsageLedger, store: UsageStore, o: { batchIntervalMs: number; batchSize: number }): UsageIngester {
  const registry = new Registry();
  return new UsageIngester(
    ledger,
    store,
    { consumer: 'test', claimIdleMs: 600_000, lastUsedIntervalMs: 60_000, ...o },
    createLogger({ service: 'test', level: 'silent' }),
    {
      batchSize: new Histogram({ name: 'b', help: 'b', registers: [registry] }),
      insertSeconds: new Histogram({ name: 's', help: 's', registers: [registry] }),
      records: new Counter({ name: 'r', help: 'r', labelNames: ['result'], registers: [registry] }),
      errors: new Counter({ name: 'e', help: 'e', registers: [registry] }),
    },
  );
}

const turn = () => new Promise((r) => setImmediate(r));

const ledgers: Array<[string, () => UsageLedger]> = [
  ['memory', () => new MemoryUsageLedger()],
  ['redis', () => new RedisUsageLedger(redis, `${prefix}${randomUUID()}:`)],
];

describe.each(ledgers)('UsageIngester (%s ledger)', (_name, make) => {
  it('takes the records that arrive while a batch is open in one read, not one read per record', async () => {
    const ledger = counted(make());
    const store = batches();
    // A long interval: the 40 appends below land inside the first record's batch window, even with
    // stalls of a loaded machine between them (the batch is written at its deadline, 8 s on).
    const ing = ingester(ledger, store, { batchIntervalMs: 8000, batchSize: 500 });
    await ing.start();
    await waitUntil(() => ledger.blocking >= 1, 'the first blocking read');
    await ledger.append(rec(0));
    await waitUntil(async () => (await ledger.depth()).pending >= 1, 'the first record delivered to the ingester');
    // One record per event-loop turn, as routers settling requests one by one append them.
    for (let i = 1; i <= 40; i++) {
      await ledger.append(rec(i));
      await turn();
    }
    await waitUntil(() => store.got.length >= 1, 'the batch written');
    expect(store.got[0]).toEqual(Array.from({ length: 41 }, (_, i) => i));
    // The blocking read that got record 0, and one read at the batch's deadline: a read that
    // blocked per record would have made one for each of the 41.
    expect(ledger.reads).toBeLessThanOrEqual(3);
    await ing.stop();
  });

  it('writes a backlog in full batches at once, without waiting for the interval', async () => {
    const ledger = counted(make());
    await ledger.ensureGroup();
    for (let i = 0; i < 25; i++) await ledger.append(rec(i));
    const store = batches();
    const ing = ingester(ledger, store, { batchIntervalMs: 600_000, batchSize: 10 });
    await ing.start();
    await waitUntil(() => store.got.length >= 2, 'two full batches');
    expect(store.got.slice(0, 2)).toEqual([Array.from({ length: 10 }, (_, i) => i), Array.from({ length: 10 }, (_, i) => 10 + i)]);
    // The third read has the last five (a stop() before it answers leaves them pending in the
    // ledger, for the next start: not what this case is about).
    await waitUntil(() => ledger.answered >= 3, 'the read of the last five');
    // They wait for their batch's deadline (ten minutes away), or for stop(), which ends the wait
    // and writes them.
    await turn();
    expect(store.got).toHaveLength(2);
    await ing.stop();
    expect(store.got[2]).toEqual([20, 21, 22, 23, 24]);
  });
});

import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { openTestRedis, sampleLedgerRecord } from './testing';
import { decodeLedgerRecord, encodeLedgerRecord, type LedgerRecord, type UsageLedger } from './ledger';
import { redisKeys } from './redis-contracts';
import { MemoryUsageLedger } from './ledger-memory';
import { RedisUsageLedger } from './ledger-redis';
import { MemoryKeyCacheBus, RedisKeyCacheBus, type KeyCacheBus, type KeyCacheInvalidation } from './key-cache-bus';
import { waitUntil } from '@llmgw/contracts/wait';

const testRedis = openTestRedis();
const { redis, prefix } = testRedis;

/** Whether a read of `l` is parked waiting for records (memory: a waiter; Redis: its reader connection is blocked in XREADGROUP). */
async function readParked(l: UsageLedger): Promise<boolean> {
  if (l instanceof MemoryUsageLedger) return (l as any).waiters.length > 0;
  const reader: Redis | undefined = await (l as any).reader;
  const port = reader?.stream?.localPort;
  if (!port) return false;
  const clients = (await redis.client('LIST')) as string;
  return clients.split('\n').some((c) => c.includes(`addr=127.0.0.1:${port} `) && c.includes('cmd=xreadgroup') && /flags=\S*b/.test(c));
}

afterAll(() => testRedis.close());

const rec = sampleLedgerRecord;

const ledgers: Array<[string, (maxLen?: number) => UsageLedger]> = [
  ['memory', (maxLen) => new MemoryUsageLedger(maxLen)],
  ['redis', (maxLen) => new RedisUsageLedger(redis, `${prefix}${randomUUID()}:`, { maxLen })],
];

describe.each(ledgers)('UsageLedger contract (%s)', (_name, make) => {
  let l: UsageLedger;
  beforeEach(async () => {
    l = make();
    await l.ensureGroup();
    await l.ensureGroup();
  });
  afterEach(async () => {
    await l.close();
  });

  it('delivers appended records once, in order, and acks shrink the backlog', async () => {
    for (let i = 1; i <= 5; i++) await l.append(rec(i));
    expect(await l.depth()).toEqual({ length: 5, pending: 0 });
    const a = await l.read('c1', 3, 0);
    expect(a.map((e) => e.record.requestId)).toEqual(['req-1', 'req-2', 'req-3']);
    expect(a[1].record).toEqual(rec(2));
    const b = await l.read('c2', 10, 0);
    expect(b.map((e) => e.record.requestId)).toEqual(['req-4', 'req-5']);
    expect(await l.read('c1', 10, 0)).toEqual([]);
    expect(await l.depth()).toEqual({ length: 5, pending: 5 });
    await l.ack([...a, ...b].map((e) => e.id));
    expect(await l.depth()).toEqual({ length: 0, pending: 0 });
  });

  it('a blocked read wakes up for a new record', async () => {
    // Blocks far longer than the test waits: only the append can end it with a record.
    const p = l.read('c1', 10, 10_000);
    await waitUntil(() => readParked(l), 'the read to block');
    await l.append(rec(1));
    const got = await p;
    expect(got.map((e) => e.record.requestId)).toEqual(['req-1']);
  });

  it('a blocked read returns empty after blockMs', async () => {
    const t = Date.now();
    expect(await l.read('c1', 10, 100)).toEqual([]);
    expect(Date.now() - t).toBeGreaterThanOrEqual(90);
  });

  it('a restarted consumer gets back what it had not acknowledged', async () => {
    for (let i = 1; i <= 3; i++) await l.append(rec(i));
    const got = await l.read('c1', 10, 0);
    await l.ack([got[0].id]);
    const again = await l.readOwnPending('c1', 10);
    expect(again.map((e) => e.record.requestId)).toEqual(['req-2', 'req-3']);
    expect(await l.readOwnPending('c2', 10)).toEqual([]);
  });

  it('entries of a dead consumer are claimed once idle long enough', async () => {
    for (let i = 1; i <= 3; i++) await l.append(rec(i));
    await l.read('dead', 10, 0);
    expect(await l.claimStale('live', 10_000, 10)).toEqual([]);
    // Claimed once idle for 100 ms: poll until all three have been idle that long.
    const claimed: Awaited<ReturnType<UsageLedger['claimStale']>> = [];
    await waitUntil(async () => claimed.push(...(await l.claimStale('live', 100, 10))) >= 3, 'the idle entries to be claimed', { everyMs: 20 });
    expect(claimed.map((e) => e.record.requestId).sort()).toEqual(['req-1', 'req-2', 'req-3']);
    await l.ack(claimed.map((e) => e.id));
    expect(await l.depth()).toEqual({ length: 0, pending: 0 });
  });

  it('is bounded: the oldest entries are trimmed past maxLen', async () => {
    const small = make(10);
    await small.ensureGroup();
    for (let i = 0; i < 300; i++) await small.append(rec(i));
    const d = await small.depth();
    // Redis trims approximately (whole macro-nodes), so allow its slack.
    expect(d.length).toBeLessThan(300);
    expect(d.length).toBeGreaterThanOrEqual(10);
    await small.close();
  });
});

const buses: Array<[string, () => KeyCacheBus]> = [
  ['memory', () => new MemoryKeyCacheBus()],
  ['redis', () => new RedisKeyCacheBus(redis, `${prefix}${randomUUID()}:`)],
];

describe.each(buses)('KeyCacheBus contract (%s)', (_name, make) => {
  it('delivers every invalidation to every subscriber until it unsubscribes', async () => {
    const bus = make();
    const a: KeyCacheInvalidation[] = [];
    const b: KeyCacheInvalidation[] = [];
    const offA = await bus.subscribe((e) => a.push(e));
    await bus.subscribe((e) => b.push(e));
    await bus.publish({ scopeType: 'key', scopeId: 'k1' });
    await bus.publish({ scopeType: 'org', scopeId: 'o1' });
    await waitUntil(() => b.length >= 2, 'both invalidations');
    expect(a).toEqual([
      { scopeType: 'key', scopeId: 'k1' },
      { scopeType: 'org', scopeId: 'o1' },
    ]);
    expect(b).toEqual(a);
    offA();
    await bus.publish({ scopeType: 'all', scopeId: '' });
    await waitUntil(() => b.length >= 3, 'the third invalidation');
    expect(b).toHaveLength(3);
    expect(a).toHaveLength(2);
    await bus.close();
  });
});

it('a Redis bus tells subscribers to drop everything after its connection comes back', async () => {
  const bus = new RedisKeyCacheBus(redis, `${prefix}${randomUUID()}:`);
  const got: KeyCacheInvalidation[] = [];
  await bus.subscribe((e) => got.push(e));
  (bus as any).sub.disconnect(true);
  await waitUntil(() => got.length > 0, 'the drop-everything after the reconnect');
  expect(got).toEqual([{ scopeType: 'all', scopeId: '' }]);
  await bus.publish({ scopeType: 'key', scopeId: 'k' });
  await waitUntil(() => got.length >= 2, 'the published invalidation');
  expect(got[1]).toEqual({ scopeType: 'key', scopeId: 'k' });
  await bus.close();
});

// The Redis contracts (docs/wire-contracts.md): versioned records, validated where read.

const rec1: LedgerRecord = {
  recordId: 'rec-1',
  requestId: 'req-1',
  ts: 1_800_000_000_000,
  keyId: 'k1',
  projectId: 'p1',
  model: 'm',
  servedModel: 'm',
  status: 200,
  promptTokens: 1,
  completionTokens: 2,
  cachedTokens: 0,
  durationMs: 10,
  costMicros: 3,
};

function collect() {
  const warned: Array<{ obj: object; msg: string }> = [];
  return { warned, log: { warn: (obj: object, msg: string) => void warned.push({ obj, msg }) } };
}

describe('Redis key names (layout v1)', () => {
  it('are the documented ones', () => {
    expect(redisKeys.rpm('llmgw:', 'key:k1')).toBe('llmgw:rl:{key:k1}:rpm');
    expect(redisKeys.tpm('llmgw:', 'key:k1')).toBe('llmgw:rl:{key:k1}:tpm');
    expect(redisKeys.budget('llmgw:', 'project:p', 1_764_547_200_000)).toBe('llmgw:budget:{project:p}:1764547200000');
    expect(redisKeys.usageStream('llmgw:')).toBe('llmgw:usage');
    expect(redisKeys.keyCacheChannel('llmgw:')).toBe('llmgw:keycache');
  });
});

describe('usage record v1', () => {
  it('is written with its version and read back unchanged; records from before `v` still read', () => {
    expect(JSON.parse(encodeLedgerRecord(rec1)).v).toBe(1);
    expect(decodeLedgerRecord(encodeLedgerRecord(rec1))).toEqual(rec1);
    const { recordId: _r, ...old } = rec1;
    expect(decodeLedgerRecord(JSON.stringify(old))).toEqual({ ...old, recordId: 'req-1' });
  });

  it('carries the LoRA adapter that served, when there was one', () => {
    const withAdapter = { ...rec1, adapter: 'sql-writer' };
    expect(decodeLedgerRecord(encodeLedgerRecord(withAdapter))).toEqual(withAdapter);
    expect(decodeLedgerRecord(JSON.stringify({ ...rec1, adapter: 7 }))).toBeUndefined();
  });

  it.each([
    ['not JSON', '{'],
    ['a missing field', JSON.stringify({ ...rec1, keyId: undefined })],
    ['a wrong type', JSON.stringify({ ...rec1, promptTokens: '1' })],
    ['a negative count', JSON.stringify({ ...rec1, costMicros: -1 })],
    ['an unknown version', JSON.stringify({ ...rec1, v: 2 })],
  ])('rejects %s, saying why', (_what, json) => {
    const c = collect();
    expect(decodeLedgerRecord(json, c.log, '1-0')).toBeUndefined();
    expect(c.warned).toHaveLength(1);
    expect(c.warned[0].obj).toMatchObject({ entry: '1-0', error: expect.any(String) });
  });

  it('a reader on Redis skips bad entries (record undefined, logged) and still returns the good ones', async () => {
    const c = collect();
    const ledger = new RedisUsageLedger(redis, `${prefix}ledger:`, { log: c.log });
    await ledger.ensureGroup();
    await redis.xadd(ledger.stream, '*', 'r', 'garbage');
    await ledger.append(rec1);
    const got = await ledger.read('c1', 10, 0);
    expect(got.map((e) => e.record?.requestId)).toEqual([undefined, 'req-1']);
    expect(c.warned).toHaveLength(1);
    await ledger.ack(got.map((e) => e.id));
    expect((await ledger.depth()).pending).toBe(0);
    await ledger.close();
  });
});

describe('key-cache invalidation v1', () => {
  it('a valid message reaches subscribers; an unreadable one is logged and read as "all" (the safe reading)', async () => {
    const c = collect();
    const bus = new RedisKeyCacheBus(redis, `${prefix}bus:`, c.log);
    const seen: KeyCacheInvalidation[] = [];
    await bus.subscribe((ev) => seen.push(ev));
    await bus.publish({ scopeType: 'key', scopeId: 'k1' });
    await redis.publish(redisKeys.keyCacheChannel(`${prefix}bus:`), JSON.stringify({ scopeType: 'tenant', scopeId: 'x' }));
    await redis.publish(redisKeys.keyCacheChannel(`${prefix}bus:`), 'nope');
    await bus.publish({ scopeType: 'project', scopeId: 'p1' });
    await waitUntil(() => seen.length === 4, 'four invalidations');
    expect(seen).toEqual([
      { scopeType: 'key', scopeId: 'k1' },
      { scopeType: 'all', scopeId: '' },
      { scopeType: 'all', scopeId: '' },
      { scopeType: 'project', scopeId: 'p1' },
    ]);
    expect(c.warned).toHaveLength(2);
    await bus.close();
  });

  it("close() does not wait on a host's subscriber connection whose Redis is down (shutdown is not held up)", async () => {
    // A Redis that refuses: the connection keeps retrying; UNSUBSCRIBE would wait in its offline queue for good.
    const down = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: false, enableOfflineQueue: true, maxRetriesPerRequest: null, retryStrategy: () => 200 });
    down.on('error', () => {});
    try {
      const bus = new RedisKeyCacheBus(redis, `${prefix}bus-down:`, collect().log, async () => down);
      void bus.subscribe(() => {});
      await waitUntil(() => down.status === 'reconnecting', 'the subscriber connection to fail');
      // No reconnect is coming: close() must settle without one (else the test times out).
      await bus.close();
      expect(down.status).not.toBe('end'); // the connection is the host's to close
    } finally {
      down.disconnect();
    }
  });

  it('a handler that throws does not stop the others or the subscription', async () => {
    const bus = new RedisKeyCacheBus(redis, `${prefix}bus2:`, collect().log);
    const seen: string[] = [];
    await bus.subscribe(() => {
      throw new Error('boom');
    });
    await bus.subscribe((ev) => seen.push(ev.scopeId));
    await bus.publish({ scopeType: 'key', scopeId: 'a' });
    await bus.publish({ scopeType: 'key', scopeId: 'b' });
    await waitUntil(() => seen.length === 2, 'both invalidations');
    expect(seen).toEqual(['a', 'b']);
    await bus.close();
  });
});

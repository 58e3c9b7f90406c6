import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { LeaderElection, type LeaderLock } from './leader-lock';
import { MemoryLeaderLock } from './leader-lock-memory';
import { RedisLeaderLock } from './leader-lock-redis';
import { waitUntil } from '@llmgw/contracts/wait';

const prefix = `test:${randomUUID()}:`;
let redis: Redis;

beforeAll(() => {
  redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: false, maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

const impls: Array<[string, () => LeaderLock]> = [
  ['memory', () => new MemoryLeaderLock()],
  ['redis', () => new RedisLeaderLock(redis, prefix)],
];

describe.each(impls)('LeaderLock contract (%s)', (_name, make) => {
  let lock: LeaderLock;
  let name: string;
  beforeEach(() => {
    lock = make();
    name = `lock-${randomUUID()}`;
  });

  it('gives the lock to one owner at a time, re-entrantly', async () => {
    const t1 = await lock.acquire(name, 'a', 5000);
    expect(t1).toBeGreaterThan(0);
    expect(await lock.acquire(name, 'b', 5000)).toBeUndefined();
    expect(await lock.acquire(name, 'a', 5000)).toBe(t1);
    expect(await lock.holder(name)).toEqual({ owner: 'a', token: t1 });
  });

  it('lets another owner take it once the TTL lapses, with a larger fencing token', async () => {
    // Refused while a long TTL holds; then a shortens it (re-entrant acquire, same token) to 100 ms: a stall
    // between the two calls cannot let b in early.
    const t1 = (await lock.acquire(name, 'a', 30_000))!;
    expect(await lock.acquire(name, 'b', 30_000)).toBeUndefined();
    expect(await lock.acquire(name, 'a', 100)).toBe(t1);
    const t2 = await waitUntil(() => lock.acquire(name, 'b', 30_000), 'the TTL to lapse', { everyMs: 20 });
    expect(t2).toBeGreaterThan(t1);
    expect(await lock.renew(name, 'a', t1, 5000)).toBe(false);
    expect(await lock.release(name, 'a', t1)).toBe(false);
    expect((await lock.holder(name))?.owner).toBe('b');
  });

  it('keeps the lock alive through renewals', async () => {
    // Taken with a short TTL and renewed for longer; a control lock taken with the same TTL
    // beside it shows, in the store's own clock, when the original TTL has passed. Short, but longer than
    // any stall of a busy machine between the acquire and the first renewal (which would make it fail).
    const control = `${name}-control`;
    const t = (await lock.acquire(name, 'a', 3_000))!;
    await lock.acquire(control, 'a', 3_000);
    for (let i = 0; i < 4; i++) expect(await lock.renew(name, 'a', t, 30_000)).toBe(true);
    await waitUntil(() => lock.acquire(control, 'b', 3_000), 'the control lock to lapse', { everyMs: 20 });
    expect(await lock.acquire(name, 'b', 3000)).toBeUndefined();
  });

  it('releases only for the holder, then hands out a new token', async () => {
    const t = (await lock.acquire(name, 'a', 5000))!;
    expect(await lock.release(name, 'b', t)).toBe(false);
    expect(await lock.release(name, 'a', t + 1)).toBe(false);
    expect(await lock.release(name, 'a', t)).toBe(true);
    expect(await lock.holder(name)).toBeUndefined();
    expect(await lock.acquire(name, 'b', 5000)).toBe(t + 1);
  });

  it('elects one leader; the standby takes over when the leader stops renewing', async () => {
    const events: string[] = [];
    // A TTL no stall of a busy test machine outlasts (renewed every 100 ms), so only a's death lets b in.
    const mk = (owner: string) =>
      new LeaderElection({
        lock,
        name,
        owner,
        ttlMs: 3000,
        intervalMs: 100,
        onElected: (t) => events.push(`${owner}+${t}`),
        onLost: () => events.push(`${owner}-`),
      });
    const a = mk('a');
    const b = mk('b');
    await a.start();
    await b.start();
    expect(a.isLeader).toBe(true);
    expect(b.isLeader).toBe(false);
    // a "dies": its loop stops without releasing (as a killed process would)
    (a as any).stopped = true;
    clearTimeout((a as any).timer);
    await waitUntil(() => b.isLeader, 'b to take over once the TTL lapses', { everyMs: 50 });
    expect(b.isLeader).toBe(true);
    expect(b.fencingToken).toBeGreaterThan(events.length ? Number(events[0].split('+')[1]) : 0);
    await b.stop();
    expect(await lock.holder(name)).toBeUndefined();
    expect(events.map((e) => e.replace(/\d+/, ''))).toEqual(['a+', 'b+']);
  });
});

describe('LeaderElection says why leadership was lost', () => {
  it('tells a lock that lapsed (the holder paused past its TTL) from one another owner took', async () => {
    let now = 0;
    const lock = new MemoryLeaderLock(() => now);
    const reasons: string[] = [];
    // Renewals run only when the test calls them: the clock is the test's.
    const a = new LeaderElection({ lock, name: 'n', owner: 'a', ttlMs: 1000, intervalMs: 3_600_000, onLost: (r) => reasons.push(r) });
    const renew = () => (a as unknown as { attempt(): Promise<void> }).attempt();
    await a.start();
    expect(a.isLeader).toBe(true);
    now = 5000; // a was paused for 5 s: its renewal comes after the TTL, and nobody else is there
    await renew();
    expect(a.isLeader).toBe(false);
    await renew(); // the next attempt takes the free lock again
    expect(a.isLeader).toBe(true);
    now = 10_000;
    expect(await lock.acquire('n', 'b', 1000)).toBeDefined(); // this time another owner was faster
    await renew();
    expect(reasons).toEqual(['lock lapsed: not renewed within its 1000 ms TTL', 'lock taken by another owner (b)']);
    await a.stop();
  });
});

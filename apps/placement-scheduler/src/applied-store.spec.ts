import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { appliedOf, MemoryAppliedCapacityStore, RedisAppliedCapacityStore, type AppliedCapacityStore } from './applied-store';

const applied = {
  profiles: [{ profile: 'big', weight: 100, targetWaitingPerReplica: 1, maxConcurrencyAtSlo: 8, gpuClass: 'h100-80g' }],
  targetWaitingPerReplica: 1,
  appliedAtMs: 5,
  appliedBy: 'ops',
};

describe('applied capacity stores', () => {
  const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  const prefix = `test:applied:${randomBytes(5).toString('hex')}:`;
  afterAll(async () => {
    await redis.del(`${prefix}placement:capacity`);
    redis.disconnect();
  });

  it.each<[string, () => AppliedCapacityStore]>([
    ['memory', () => new MemoryAppliedCapacityStore()],
    ['redis', () => new RedisAppliedCapacityStore(redis, prefix)],
  ])('%s: set, load, remove', async (_n, make) => {
    const s = make();
    await s.set('cap', applied);
    expect(await s.load()).toEqual(new Map([['cap', applied]]));
    await s.set('cap', undefined);
    expect(await s.load()).toEqual(new Map());
  });

  it('ignores a malformed entry (the next set overwrites it)', async () => {
    await redis.hset(`${prefix}placement:capacity`, 'bad', '{"profiles":[{"profile":"x","weight":0,"targetWaitingPerReplica":1}],"targetWaitingPerReplica":1}');
    await redis.hset(`${prefix}placement:capacity`, 'worse', 'not json');
    expect(await new RedisAppliedCapacityStore(redis, prefix).load()).toEqual(new Map());
    expect(appliedOf(JSON.stringify({ ...applied, targetWaitingPerReplica: 0 }))).toBeUndefined();
    expect(appliedOf(JSON.stringify(applied))).toEqual(applied);
  });
});

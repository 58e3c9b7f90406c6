import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { MemoryQuotaStore, RedisQuotaStore, type QuotaStore } from './quota-store';

const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1, lazyConnect: true });
const prefix = `test:quota:${randomBytes(4).toString('hex')}:`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe.each<[string, () => QuotaStore]>([
  ['Redis', () => new RedisQuotaStore(redis, `${prefix}${randomBytes(3).toString('hex')}:`)],
  ['in process', () => new MemoryQuotaStore()],
])('quota overrides (%s)', (_name, make) => {
  it('keeps one override per scope, name and class; clearing removes it', async () => {
    const s = make();
    await s.set({ scope: 'org', name: 'acme' }, { scope: 'org', name: 'acme', guaranteeGpus: 8, limitGpus: 16 });
    await s.set({ scope: 'org', name: 'acme', capacityClass: 'critical' }, { scope: 'org', name: 'acme', capacityClass: 'critical', guaranteeGpus: 2 });
    await s.set({ scope: 'org', name: 'acme' }, { scope: 'org', name: 'acme', guaranteeGpus: 4 });
    const rules = (await s.load()).sort((a, b) => (a.capacityClass ?? '').localeCompare(b.capacityClass ?? ''));
    expect(rules).toEqual([
      { scope: 'org', name: 'acme', guaranteeGpus: 4 },
      { scope: 'org', name: 'acme', capacityClass: 'critical', guaranteeGpus: 2 },
    ]);
    await s.set({ scope: 'org', name: 'acme' }, undefined);
    expect(await s.load()).toEqual([{ scope: 'org', name: 'acme', capacityClass: 'critical', guaranteeGpus: 2 }]);
  });
});

it('a malformed Redis entry is ignored, not fatal', async () => {
  const p = `${prefix}bad:`;
  await redis.hset(
    `${p}placement:quotas`,
    'x',
    '{"scope":"galaxy","name":"a","guaranteeGpus":1}',
    'y',
    'not json',
    'z',
    '{"scope":"team","name":"t","guaranteeGpus":3}',
  );
  expect(await new RedisQuotaStore(redis, p).load()).toEqual([{ scope: 'team', name: 't', guaranteeGpus: 3 }]);
});

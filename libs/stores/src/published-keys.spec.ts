import type { Principal } from '@llmgw/contracts';
import { createHash, randomUUID } from 'node:crypto';
import { MemoryPublishedKeys, type PublishedKeys, RedisPublishedKeys, activeKeyRecord, principalOfRecord, revokedKeyRecord } from './published-keys';
import { inProcessAccountingStores, redisAccountingStores } from './ledger-stores';
import { publishedKeySchema, redisKeys } from './redis-contracts';
import { openTestRedis } from './testing';

const testRedis = openTestRedis();
const { redis, prefix } = testRedis;

afterAll(() => testRedis.close());

const hashOf = (s: string) => createHash('sha256').update(s).digest('hex');
const principal = (over: Partial<Principal> = {}): Principal => ({
  keyId: 'key_1',
  keyPrefix: 'sk-llmgw-ab',
  projectId: 'proj_1',
  teamId: 'team_1',
  orgId: 'org_1',
  band: '',
  limits: { rpm: [{ scope: 'key:key_1', limit: 10 }], tpm: [], budgets: [{ scope: 'org:org_1', limitMicros: 5, period: 'day' }] },
  ...over,
});

const impls: Array<[string, () => PublishedKeys]> = [
  ['memory', () => new MemoryPublishedKeys()],
  ['redis', () => new RedisPublishedKeys(redis, `${prefix}${randomUUID()}:`)],
];

describe.each(impls)('PublishedKeys contract (%s)', (_name, make) => {
  let s: PublishedKeys;
  beforeEach(() => {
    s = make();
  });

  it('round-trips an active record; the router reads the principal accounting resolved', async () => {
    const h = hashOf('a');
    const p = principal({ routingProfile: 'fast', expiresAt: 123, limits: { rpm: [], tpm: [], budgets: [], allowedModels: ['m'] } });
    expect(await s.put([activeKeyRecord(h, p, 10)])).toBe(1);
    const got = await s.get(h);
    expect(got).toEqual(activeKeyRecord(h, p, 10));
    expect(principalOfRecord(got!, 'gold')).toEqual({ ...p, band: 'gold' });
    expect(principalOfRecord(activeKeyRecord(h, principal({ band: 'silver' }), 1), 'gold')!.band).toBe('silver');
    expect(await s.get(hashOf('unknown'))).toBeUndefined();
  });

  it('a newer rev replaces, an older one does not', async () => {
    const h = hashOf('b');
    await s.put([activeKeyRecord(h, principal({ band: 'x' }), 20)]);
    expect(await s.put([activeKeyRecord(h, principal({ band: 'old' }), 19)])).toBe(0);
    expect((await s.get(h)) as { band: string }).toMatchObject({ band: 'x' });
    expect(await s.put([activeKeyRecord(h, principal({ band: 'new' }), 20)])).toBe(1);
    expect((await s.get(h)) as { band: string }).toMatchObject({ band: 'new' });
  });

  it('a tombstone wins over any rev and is never replaced (a slow backfill cannot revive a revoked key)', async () => {
    const h = hashOf('c');
    await s.put([activeKeyRecord(h, principal(), 50)]);
    expect(await s.put([revokedKeyRecord(h, 'key_1', 40)])).toBe(1);
    expect(await s.put([activeKeyRecord(h, principal(), 60)])).toBe(0);
    expect(await s.get(h)).toEqual({ v: 1, state: 'revoked', keyHash: h, rev: 40, keyId: 'key_1' });
    expect(principalOfRecord((await s.get(h))!, 'gold')).toBeNull();
  });

  it('writes a batch, each record by the same rule', async () => {
    const hs = ['d1', 'd2', 'd3'].map(hashOf);
    await s.put([revokedKeyRecord(hs[1], 'key_2', 1)]);
    expect(await s.put(hs.map((h) => activeKeyRecord(h, principal(), 5)))).toBe(2);
    expect((await s.get(hs[1]))!.state).toBe('revoked');
    expect((await s.get(hs[2]))!.state).toBe('active');
  });
});

describe('RedisPublishedKeys reading what it did not write', () => {
  it('a record that does not validate is logged and read as none; so is one filed under another hash', async () => {
    const p = `${prefix}${randomUUID()}:`;
    const warn = jest.fn();
    const s = new RedisPublishedKeys(redis, p, { warn });
    const h = hashOf('bad');
    await redis.set(redisKeys.publishedKey(p, h), JSON.stringify({ v: 1, state: 'active', keyHash: h, rev: 1 }));
    expect(await s.get(h)).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ key: redisKeys.publishedKey(p, h) }), expect.stringMatching(/not valid v1/));
    const other = hashOf('other');
    await redis.set(redisKeys.publishedKey(p, other), JSON.stringify(activeKeyRecord(h, principal(), 1)));
    expect(await s.get(other)).toBeUndefined();
    // Garbage under the key is replaced by the next write rather than blocking it.
    await redis.set(redisKeys.publishedKey(p, h), 'not json');
    expect(await s.put([activeKeyRecord(h, principal(), 1)])).toBe(1);
  });

  it('the schema never carries a secret field and refuses a malformed hash', () => {
    const rec = activeKeyRecord(hashOf('x'), principal(), 1);
    expect(Object.keys(rec)).not.toContain('secret');
    expect(publishedKeySchema.safeParse({ ...rec, keyHash: 'sk-llmgw-abc' }).success).toBe(false);
  });
});

describe('the store sets carry the records', () => {
  it('in-process stores share one set by name; Redis stores write under the prefix', async () => {
    const name = `t-${randomUUID()}`;
    expect(inProcessAccountingStores(name).publishedKeys).toBe(inProcessAccountingStores(name).publishedKeys);
    const p = `${prefix}${randomUUID()}:`;
    const st = redisAccountingStores(redis, p);
    const h = hashOf('s');
    await st.publishedKeys!.put([activeKeyRecord(h, principal(), 1)]);
    expect(JSON.parse((await redis.get(`${p}apikey:${h}`))!)).toMatchObject({ v: 1, state: 'active', keyHash: h });
  });
});

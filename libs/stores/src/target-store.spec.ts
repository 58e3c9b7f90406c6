import { randomUUID } from 'node:crypto';
import { openTestRedis } from './testing';
import { MemoryTargetStore, RedisTargetStore, type TargetStore } from './target-store';

const testRedis = openTestRedis();
const { redis, prefix } = testRedis;

afterAll(() => testRedis.close());

const impls: Array<[string, () => TargetStore]> = [
  ['memory', () => new MemoryTargetStore()],
  ['redis', () => new RedisTargetStore(redis, `${prefix}${randomUUID()}:`)],
];

describe.each(impls)('TargetStore contract (%s)', (_name, make) => {
  let s: TargetStore;
  beforeEach(() => {
    s = make();
  });

  it('starts empty; keeps one target per model, the last set winning', async () => {
    expect(await s.load()).toEqual(new Map());
    await s.set('demo', { min: 1, max: 3 });
    await s.set('lazy', { min: 0, max: 1 });
    await s.set('demo', { min: 2, max: 2 });
    expect(await s.load()).toEqual(
      new Map([
        ['demo', { min: 2, max: 2 }],
        ['lazy', { min: 0, max: 1 }],
      ]),
    );
  });

  it('removes a target when set to undefined', async () => {
    await s.set('demo', { min: 1, max: 3 });
    await s.set('demo', undefined);
    await s.set('never-set', undefined);
    expect(await s.load()).toEqual(new Map());
  });

  it('hands out copies: changing what load returned changes nothing stored', async () => {
    await s.set('demo', { min: 1, max: 3 });
    const got = await s.load();
    got.get('demo')!.max = 99;
    got.delete('demo');
    expect(await s.load()).toEqual(new Map([['demo', { min: 1, max: 3 }]]));
  });
});

describe('RedisTargetStore', () => {
  it('skips a malformed stored target', async () => {
    const p = `${prefix}${randomUUID()}:`;
    const s = new RedisTargetStore(redis, p);
    await redis.hset(`${p}placement:targets`, 'bad', '{nope', 'neg', JSON.stringify({ min: 2, max: 1 }));
    await s.set('ok', { min: 0, max: 2 });
    expect(await s.load()).toEqual(new Map([['ok', { min: 0, max: 2 }]]));
  });
});

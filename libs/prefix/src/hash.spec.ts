import { fmix32, hash32 } from './hash';

describe('hash32', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('is FNV-1a 32 of %j before the finaliser', (s, fnv) => {
    expect(hash32(s)).toBe(fmix32(fnv));
  });

  it('returns unsigned 32-bit integers and is deterministic', () => {
    for (const s of ['r1#0', 'replica-a', 'ñ✓', 'x'.repeat(1000)]) {
      const h = hash32(s);
      expect(Number.isInteger(h)).toBe(true);
      expect(h).toBeGreaterThanOrEqual(0);
      expect(h).toBeLessThan(2 ** 32);
      expect(hash32(s)).toBe(h);
    }
  });

  it('spreads keys that differ only in a trailing digit over the whole range', () => {
    const buckets = new Array<number>(16).fill(0);
    for (let i = 0; i < 16_000; i++) buckets[hash32(`r1#${i}`) >>> 28]++;
    for (const b of buckets) {
      expect(b).toBeGreaterThan(800);
      expect(b).toBeLessThan(1200);
    }
  });
});

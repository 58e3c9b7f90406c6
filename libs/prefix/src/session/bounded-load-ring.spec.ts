import fc from 'fast-check';
import { BoundedLoadRing } from './bounded-load-ring';
import { RingSet } from './ring-set';

const ids = (n: number, prefix = 'replica-'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const zero = (): number => 0;

describe('BoundedLoadRing', () => {
  it('maps a key to the same member whatever order members are given in', () => {
    const a = new BoundedLoadRing(['a', 'b', 'c', 'd']);
    const b = new BoundedLoadRing(['d', 'b', 'a', 'c', 'a']);
    expect(b.size).toBe(4);
    for (let i = 0; i < 500; i++) expect(b.owner(`k${i}`)).toBe(a.owner(`k${i}`));
  });

  it('returns undefined on an empty ring and rejects a load factor below 1', () => {
    expect(new BoundedLoadRing([]).pick('k', zero, 1.25)).toBeUndefined();
    expect(() => new BoundedLoadRing(['a']).pick('k', zero, 0.9)).toThrow(/loadFactor/);
    expect(() => new BoundedLoadRing(['a'], { virtualNodes: 0 })).toThrow(/virtualNodes/);
  });

  it('picks the owner while loads are even', () => {
    const ring = new BoundedLoadRing(ids(5));
    for (let i = 0; i < 200; i++) {
      const p = ring.pick(`s${i}`, () => 3, 1.25);
      expect(p).toEqual({ id: ring.owner(`s${i}`), primary: ring.owner(`s${i}`), overflow: false, skipped: 0 });
    }
  });

  // A member may take the request while load + 1 ≤ ceil(lf × (total + 1) / N); N = 4 here.
  it.each([
    // loads [primary, three others], load factor, bound, primary overflows
    [[0, 0, 0, 0], 1.25, 1, false],
    [[1, 0, 0, 0], 1.25, 1, true],
    [[4, 4, 4, 4], 1.25, 6, false],
    [[5, 4, 4, 4], 1.25, 6, false],
    [[6, 4, 4, 4], 1.25, 6, true],
    [[6, 2, 2, 2], 2, 7, false],
    [[7, 2, 2, 2], 2, 7, true],
  ])('loads %j at load factor %d: bound %d, overflow %s', (loads, lf, bound, overflow) => {
    const members = ids(4);
    const ring = new BoundedLoadRing(members);
    const key = 'session-x';
    const primary = ring.owner(key)!;
    const others = members.filter((m) => m !== primary);
    const loadOf = (id: string): number => (id === primary ? loads[0] : loads[1 + others.indexOf(id)]);
    const p = ring.pick(key, loadOf, lf)!;
    expect(p.primary).toBe(primary);
    expect(p.overflow).toBe(overflow);
    expect(p.id === primary).toBe(!overflow);
    expect(loadOf(p.id) + 1).toBeLessThanOrEqual(bound);
  });

  it('on overflow walks to the next member on the ring, i.e. the owner once the primary is gone', () => {
    const members = ids(8);
    const ring = new BoundedLoadRing(members);
    for (let i = 0; i < 300; i++) {
      const key = `sess-${i}`;
      const primary = ring.owner(key)!;
      const p = ring.pick(key, (id) => (id === primary ? 100 : 1), 1.25)!;
      expect(p.overflow).toBe(true);
      expect(p.skipped).toBe(1);
      expect(p.id).toBe(new BoundedLoadRing(members.filter((m) => m !== primary)).owner(key));
    }
  });

  it('property: the chosen member is always within the bound, and is the primary when the primary fits', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(50), { minLength: 1, maxLength: 16 }), fc.string(), fc.double({ min: 1, max: 3, noNaN: true }), (loads, key, lf) => {
        const members = ids(loads.length);
        const ring = new BoundedLoadRing(members, { virtualNodes: 20 });
        const loadOf = (id: string): number => loads[members.indexOf(id)];
        const total = loads.reduce((a, b) => a + b, 0);
        const bound = Math.ceil((lf * (total + 1)) / loads.length);
        const p = ring.pick(key, loadOf, lf)!;
        expect(loadOf(p.id) + 1).toBeLessThanOrEqual(bound);
        if (loadOf(p.primary) + 1 <= bound) expect(p.id).toBe(p.primary);
      }),
      { numRuns: 300 },
    );
  });

  it.each([3, 4, 8, 16])('adding one member to %d remaps about 1/(N+1) of keys, all to the new member', (n) => {
    const before = new BoundedLoadRing(ids(n));
    const after = new BoundedLoadRing([...ids(n), 'newcomer']);
    const keys = 20_000;
    let moved = 0;
    for (let i = 0; i < keys; i++) {
      const a = before.owner(`user-${i}`);
      const b = after.owner(`user-${i}`);
      if (a !== b) {
        moved++;
        expect(b).toBe('newcomer');
      }
    }
    const expected = keys / (n + 1);
    expect(moved).toBeGreaterThan(expected * 0.6);
    expect(moved).toBeLessThan(expected * 1.4);
  });

  it('property: removing a member moves only the keys it owned', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 12 }),
        fc.array(fc.string(), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        (members, keys, which) => {
          const gone = members[which % members.length];
          const full = new BoundedLoadRing(members, { virtualNodes: 16 });
          const less = new BoundedLoadRing(
            members.filter((m) => m !== gone),
            { virtualNodes: 16 },
          );
          for (const k of keys) {
            const before = full.owner(k);
            if (before !== gone) expect(less.owner(k)).toBe(before);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it.each([3, 8, 16])('spreads keys evenly over %d members (each within ±35%% of its share)', (n) => {
    const ring = new BoundedLoadRing(ids(n));
    const counts = new Map<string, number>();
    const keys = 32_000;
    for (let i = 0; i < keys; i++) {
      const o = ring.owner(`k-${i}`)!;
      counts.set(o, (counts.get(o) ?? 0) + 1);
    }
    for (const id of ids(n)) {
      expect(counts.get(id) ?? 0).toBeGreaterThan((keys / n) * 0.65);
      expect(counts.get(id) ?? 0).toBeLessThan((keys / n) * 1.35);
    }
  });
});

describe('pick over a subset of the members', () => {
  it('property: a ring over a superset places keys exactly like a ring over the candidates alone', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.array(fc.nat(10), { minLength: 12, maxLength: 12 }),
        fc.string(),
        fc.double({ min: 1, max: 2, noNaN: true }),
        (members, inSubset, loads, key, lf) => {
          const subset = members.filter((_, i) => inSubset[i]);
          const loadOf = (id: string): number => loads[members.indexOf(id)];
          const big = new BoundedLoadRing(members, { virtualNodes: 16 });
          const small = new BoundedLoadRing(subset, { virtualNodes: 16 });
          const viaBig = big.pick(key, (id) => (subset.includes(id) ? loadOf(id) : undefined), lf);
          expect(viaBig).toEqual(small.pick(key, loadOf, lf));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('returns undefined when no member is a candidate', () => {
    expect(new BoundedLoadRing(['a', 'b']).pick('k', () => undefined, 1.25)).toBeUndefined();
  });
});

describe('RingSet', () => {
  it('builds a ring per scope only when a new member appears', () => {
    const rings = new RingSet();
    const r1 = rings.get('m', ['a', 'b', 'c']);
    expect(rings.get('m', ['c', 'a', 'b'])).toBe(r1);
    expect(rings.get('m', ['a', 'b'])).toBe(r1); // a retry or a drain: same ring
    expect(rings.builds).toBe(1);
    const r2 = rings.get('m', ['a', 'b', 'd']);
    expect(r2.members).toEqual(['a', 'b', 'c', 'd']);
    expect(rings.get('other', ['a'])).not.toBe(r2);
    expect(rings.builds).toBe(3);
  });

  it('drops departed members once they outnumber the candidates', () => {
    const rings = new RingSet();
    rings.get('m', ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    const r = rings.get('m', ['a']); // 7 > 2 × 1 + 4
    expect(r.members).toEqual(['a']);
  });

  it('evicts the oldest scope beyond its bound', () => {
    const rings = new RingSet({}, 2);
    const r1 = rings.get('x', ['a']);
    rings.get('y', ['a']);
    rings.get('z', ['a']);
    expect(rings.get('x', ['a'])).not.toBe(r1);
  });
});

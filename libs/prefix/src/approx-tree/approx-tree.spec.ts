import fc from 'fast-check';
import { ApproxTree } from './approx-tree';
import { chunkHashes } from './chunk-hash';
import { ApproxTreeSet } from './tree-set';

const C = 4;
const h = (s: string): number[] => chunkHashes(s, C);

describe('chunkHashes', () => {
  it('hashes full chunks only, chained: equal prefixes give equal leading hashes', () => {
    const a = h('aaaabbbbcc');
    const b = h('aaaabbbbdddd');
    expect(a).toHaveLength(2);
    expect(b).toHaveLength(3);
    expect(b.slice(0, 2)).toEqual(a);
    // the same chunk after a different prefix is a different node
    expect(h('xxxxbbbb')[1]).not.toBe(a[1]);
  });

  it('gives safe integers and is stable across calls', () => {
    const v = h('the quick brown fox jumps over the lazy dog');
    for (const x of v) expect(Number.isSafeInteger(x)).toBe(true);
    expect(h('the quick brown fox jumps over the lazy dog')).toEqual(v);
  });

  it('rejects a bad chunk size', () => {
    expect(() => chunkHashes('abc', 0)).toThrow(RangeError);
  });
});

describe('ApproxTree', () => {
  it('matches the longest inserted prefix per tenant', () => {
    const t = new ApproxTree();
    t.insert(h('sys0sys1userAAAA'), 'r1', 1);
    t.insert(h('sys0sys1userBBBB'), 'r2', 2);
    const m = t.match(h('sys0sys1userAAAAmore'));
    expect(m.chunks).toBe(5);
    expect(Object.fromEntries(m.matched)).toEqual({ r1: 4, r2: 3 });
    expect(t.match(h('zzzz')).matched.size).toBe(0);
  });

  it('matchSince counts only what was sent to a tenant at or after the given time', () => {
    const t = new ApproxTree();
    t.insert(h('sys0sys1userAAAA'), 'r1', 1);
    t.insert(h('sys0sys1'), 'r1', 5); // the shared part sent again later
    t.insert(h('sys0sys1userBBBB'), 'r2', 3);
    const q = h('sys0sys1userAAAAmore');
    expect(Object.fromEntries(t.matchSince(q, 0).matched)).toEqual(Object.fromEntries(t.match(q).matched));
    expect(Object.fromEntries(t.matchSince(q, 3).matched)).toEqual({ r1: 2, r2: 3 });
    expect(Object.fromEntries(t.matchSince(q, 4).matched)).toEqual({ r1: 2 });
    expect(t.matchSince(q, 6).matched.size).toBe(0);
  });

  it('counts nodes and (node, tenant) entries', () => {
    const t = new ApproxTree();
    t.insert(h('aaaabbbb'), 'r1', 1);
    t.insert(h('aaaacccc'), 'r1', 2);
    t.insert(h('aaaabbbb'), 'r2', 3);
    expect(t.nodeCount).toBe(3);
    expect(t.entryCount).toBe(5);
    expect(t.tenantChunks('r1')).toBe(3);
  });

  it('evicts least recently sent leaves first and keeps the prefix closure', () => {
    const t = new ApproxTree();
    t.insert(h('aaaabbbbcccc'), 'r1', 1); // 3 chunks
    t.insert(h('aaaadddd'), 'r1', 2); // shares 'aaaa', adds 1
    expect(t.tenantChunks('r1')).toBe(4);
    expect(t.evict(2)).toBe(2);
    // the older branch went, deepest first; the shared root and the newer branch stay
    expect(t.match(h('aaaadddd')).matched.get('r1')).toBe(2);
    expect(t.match(h('aaaabbbbcccc')).matched.get('r1')).toBe(1);
    expect(t.nodeCount).toBe(2);
  });

  it('removes a tenant and drops nodes nobody holds', () => {
    const t = new ApproxTree();
    t.insert(h('aaaabbbb'), 'r1', 1);
    t.insert(h('aaaa'), 'r2', 1);
    expect(t.removeTenant('r1')).toBe(2);
    expect(t.nodeCount).toBe(1);
    expect(t.tenants()).toEqual(['r2']);
    expect(t.removeTenant('nope')).toBe(0);
  });

  it('property: match equals a brute-force longest common chunk prefix over what each tenant was sent', () => {
    const text = fc.stringMatching(/^[ab]{0,24}$/);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, fc.constantFrom('r1', 'r2', 'r3')), { maxLength: 30 }),
        fc.array(text, { minLength: 1, maxLength: 10 }),
        (inserts, queries) => {
          const t = new ApproxTree();
          inserts.forEach(([s, tenant], i) => t.insert(h(s), tenant, i));
          for (const q of queries) {
            const expected = new Map<string, number>();
            for (const [s, tenant] of inserts) {
              let lcp = 0;
              while (lcp < q.length && lcp < s.length && q[lcp] === s[lcp]) lcp++;
              const chunks = Math.floor(lcp / C);
              if (chunks > (expected.get(tenant) ?? 0)) expected.set(tenant, chunks);
            }
            const got = t.match(h(q));
            expect(Object.fromEntries(got.matched)).toEqual(Object.fromEntries(expected));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: after eviction each tenant holds at most the limit, and what remains is still prefix-closed', () => {
    const text = fc.stringMatching(/^[abc]{4,24}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.constantFrom('r1', 'r2')), { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 8 }), (inserts, limit) => {
        const t = new ApproxTree();
        inserts.forEach(([s, tenant], i) => t.insert(h(s), tenant, i));
        t.evict(limit);
        for (const tenant of ['r1', 'r2']) expect(t.tenantChunks(tenant)).toBeLessThanOrEqual(limit);
        // Prefix closure: for every inserted string, the tenants matching k chunks match every shorter prefix too.
        for (const [s] of inserts) {
          const hs = h(s);
          const full = t.match(hs);
          for (const [tenant, k] of full.matched) {
            for (let j = 1; j <= k; j++) expect(t.match(hs.slice(0, j)).matched.get(tenant)).toBe(j);
          }
        }
        // The entry count agrees with the per-tenant counts.
        expect(t.entryCount).toBe(t.tenantChunks('r1') + t.tenantChunks('r2'));
      }),
      { numRuns: 200 },
    );
  });

  it('property: long runs with evictions and removals keep exactly the entries of a moving-LRU reference (the log compacts)', () => {
    // The reference is the textbook LRU: each insert moves its path to the back of the tenant's list, deepest first.
    class Reference {
      nodes = new Map<number, Set<string>>();
      lru = new Map<string, Map<number, true>>();
      insert(hs: number[], tenant: string): void {
        let order = this.lru.get(tenant);
        if (!order) this.lru.set(tenant, (order = new Map()));
        for (let i = hs.length - 1; i >= 0; i--) {
          let set = this.nodes.get(hs[i]);
          if (!set) this.nodes.set(hs[i], (set = new Set()));
          set.add(tenant);
          order.delete(hs[i]);
          order.set(hs[i], true);
        }
      }
      drop(h: number, tenant: string): void {
        const set = this.nodes.get(h)!;
        set.delete(tenant);
        if (set.size === 0) this.nodes.delete(h);
      }
      evict(limit: number): void {
        for (const [tenant, order] of this.lru) {
          while (order.size > limit) {
            const h = order.keys().next().value as number;
            order.delete(h);
            this.drop(h, tenant);
          }
          if (order.size === 0) this.lru.delete(tenant);
        }
      }
      remove(tenant: string): void {
        for (const h of this.lru.get(tenant)?.keys() ?? []) this.drop(h, tenant);
        this.lru.delete(tenant);
      }
      match(hs: number[]): Record<string, number> {
        const out: Record<string, number> = {};
        for (let i = 0; i < hs.length && this.nodes.has(hs[i]); i++) for (const t of this.nodes.get(hs[i])!) out[t] = i + 1;
        return out;
      }
    }
    const op = fc.oneof(
      { weight: 8, arbitrary: fc.tuple(fc.constant('insert' as const), fc.stringMatching(/^[ab]{4,28}$/), fc.constantFrom('r1', 'r2', 'r3')) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('evict' as const), fc.integer({ min: 0, max: 10 }), fc.constant('')) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('remove' as const), fc.constant(''), fc.constantFrom('r1', 'r2', 'r3')) },
      // The last prompt again, without a match first (a retry after an eviction or removal in between).
      { weight: 2, arbitrary: fc.tuple(fc.constant('again' as const), fc.constant(''), fc.constantFrom('r1', 'r2', 'r3')) },
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 50, maxLength: 600 }), (ops) => {
        const t = new ApproxTree();
        const ref = new Reference();
        const seen = new Set<string>();
        // One hash array per prompt, as the router's PrefixIndex memoizes them: a routing decision matches, then
        // inserts the same array (the tree reuses the match's walk), and an eviction or removal may come between.
        const memo = new Map<string, number[]>();
        const hashesOf = (s: string): number[] => memo.get(s) ?? memo.set(s, h(s)).get(s)!;
        let last: number[] | undefined;
        ops.forEach(([kind, arg, tenant], i) => {
          if (kind === 'insert') {
            seen.add(arg as string);
            last = hashesOf(arg as string);
            if (i % 3 !== 0) t.match(last);
            t.insert(last, tenant, i);
            ref.insert(h(arg as string), tenant);
          } else if (kind === 'again') {
            if (!last) return;
            t.insert(last, tenant, i);
            ref.insert(last, tenant);
          } else if (kind === 'evict') {
            if (last) t.match(last);
            t.evict(arg as number);
            ref.evict(arg as number);
          } else {
            t.removeTenant(tenant);
            ref.remove(tenant);
          }
        });
        for (const tenant of ['r1', 'r2', 'r3']) expect(t.tenantChunks(tenant)).toBe(ref.lru.get(tenant)?.size ?? 0);
        for (const s of seen) expect(Object.fromEntries(t.match(h(s)).matched)).toEqual(ref.match(h(s)));
        expect(t.nodeCount).toBe(ref.nodes.size);
      }),
      { numRuns: 150 },
    );
  });

  it('property: the most recent insert of a tenant survives eviction to its own length', () => {
    const text = fc.stringMatching(/^[ab]{4,20}$/);
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (sent) => {
        const t = new ApproxTree();
        sent.forEach((s, i) => t.insert(h(s), 'r1', i));
        const last = h(sent[sent.length - 1]);
        t.evict(last.length);
        expect(t.match(last).matched.get('r1')).toBe(last.length);
      }),
    );
  });
});

describe('ApproxTreeSet', () => {
  it('keeps one tree per model and evicts lazily once the interval has passed', () => {
    const s = new ApproxTreeSet({ chunkChars: 4, maxTreeSize: 8, evictionIntervalMs: 1000 });
    s.insert('m1', s.hashes('aaaabbbb'), 'r1', 0); // first insert evicts (nothing to do)
    s.insert('m1', s.hashes('ccccdddd'), 'r1', 10); // 4 chunks now, limit 2, no eviction yet
    expect(s.tree('m1')!.tenantChunks('r1')).toBe(4);
    expect(s.match('m2', s.hashes('aaaa'))).toBeUndefined();
    s.insert('m1', s.hashes('cccc'), 'r1', 1000);
    expect(s.tree('m1')!.tenantChunks('r1')).toBe(2);
    expect(s.match('m1', s.hashes('ccccdddd'))!.matched.get('r1')).toBe(2);
    expect(s.evicted).toBe(2);
  });

  it('removes a replica from every model', () => {
    const s = new ApproxTreeSet({ chunkChars: 4 });
    s.insert('m1', s.hashes('aaaa'), 'r1', 0);
    s.insert('m2', s.hashes('aaaa'), 'r1', 0);
    s.removeTenant('r1');
    expect(s.entryCount).toBe(0);
  });

  it('rejects sizes that cannot hold a chunk', () => {
    expect(() => new ApproxTreeSet({ chunkChars: 64, maxTreeSize: 10 })).toThrow(RangeError);
  });
});

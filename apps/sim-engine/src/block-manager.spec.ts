import { BlockManager } from './block-manager';
import { KvEventBus, type KvEvent } from './kv-events';
import { blockHash } from './rng';

function setup(numBlocks = 10, cacheCapacity = 4) {
  const bus = new KvEventBus();
  const events: KvEvent[] = [];
  bus.subscribe((b) => events.push(...b.events));
  const bm = new BlockManager(numBlocks, 16, cacheCapacity, bus);
  return { bm, bus, events };
}

/** Chained hashes of `n` full blocks of `tokens`. */
function chain(tokens: number[], n: number): number[] {
  const out: number[] = [];
  let parent: number | null = null;
  for (let i = 0; i < n; i++) out.push((parent = blockHash(parent, tokens, i * 16, (i + 1) * 16)));
  return out;
}

const toks = (seed: number, n: number) => Array.from({ length: n }, (_, i) => seed * 1000 + i);

describe('BlockManager', () => {
  it('allocates within the pool and refuses beyond it without side effects', () => {
    const { bm } = setup(10);
    expect(bm.allocate(7)).toBe(true);
    expect(bm.allocate(4)).toBe(false);
    expect(bm.usedBlocks).toBe(7);
    bm.freePrivate(7);
    expect(bm.usage).toBe(0);
  });

  it('caches inserted blocks, counts idle cached blocks as free, and reuses them on lookup', () => {
    const { bm, bus, events } = setup(10, 8);
    const t = toks(1, 48);
    const h = chain(t, 3);
    bm.allocate(4);
    expect(bm.insert(null, h, t, 0)).toEqual(h);
    bus.flush();
    expect(events).toEqual([
      { type: 'BlockStored', block_hashes: h, parent_block_hash: null, token_ids: t, block_size: 16, lora_id: null, medium: 'GPU', lora_name: null },
    ]);
    bm.releaseCached(h);
    bm.freePrivate(1);
    expect(bm.usage).toBe(0);
    expect(bm.cachedBlocks).toBe(3);
    expect(bm.lookup(h, 3)).toBe(3);
    expect(bm.lookup(chain(toks(2, 48), 3), 3)).toBe(0);
    expect(bm.idleAmong(h, 3)).toBe(3);
    bm.acquireCached(h, 2);
    expect(bm.usedBlocks).toBe(2);
  });

  it('evicts idle cached blocks LRU when the pool needs them, with BlockRemoved', () => {
    const { bm, bus, events } = setup(4, 4);
    const t = toks(3, 48);
    const h = chain(t, 3);
    bm.allocate(3);
    bm.insert(null, h, t, 0);
    bm.releaseCached(h);
    bus.flush();
    events.length = 0;
    expect(bm.available).toBe(4);
    expect(bm.allocate(3)).toBe(true); // 1 truly free + 2 evicted
    bus.flush();
    expect(events).toEqual([
      { type: 'BlockRemoved', block_hashes: [h[0]], medium: 'GPU' },
      { type: 'BlockRemoved', block_hashes: [h[1]], medium: 'GPU' },
    ]);
    expect(bm.lookup(h, 3)).toBe(0); // the chain is broken at its first block
    expect(bm.cachedBlocks).toBe(1);
  });

  it('the prefix-cache LRU holds at most --prefix-cache-blocks entries', () => {
    const { bm } = setup(100, 2);
    const a = toks(4, 48);
    const ha = chain(a, 3);
    bm.allocate(3);
    expect(bm.insert(null, ha, a, 0)).toEqual(ha.slice(0, 2)); // third one stays private: all entries in use
    bm.releaseCached(ha.slice(0, 2));
    const b = toks(5, 32);
    const hb = chain(b, 2);
    bm.allocate(2);
    expect(bm.insert(null, hb, b, 0)).toEqual(hb);
    expect(bm.cachedBlocks).toBe(2);
  });

  it('a block computed twice is stored once; the second copy is freed', () => {
    const { bm, bus, events } = setup(10, 8);
    const t = toks(6, 32);
    const h = chain(t, 2);
    bm.allocate(2);
    bm.allocate(2);
    bm.insert(null, h, t, 0);
    bm.insert(null, h, t, 0);
    bus.flush();
    expect(events.filter((e) => e.type === 'BlockStored')).toHaveLength(1);
    expect(bm.usedBlocks).toBe(2);
  });

  it('reset empties the cache as AllBlocksCleared says; blocks in use stay allocated until released', () => {
    const { bm, bus, events } = setup(10, 8);
    const t = toks(7, 32);
    const h = chain(t, 2);
    bm.allocate(2);
    bm.insert(null, h, t, 0);
    bm.releaseCached([h[1]]);
    expect(bm.reset()).toBe(1);
    bus.flush();
    expect(events.at(-1)).toEqual({ type: 'AllBlocksCleared' });
    expect(bm.lookup(h, 2)).toBe(0); // nothing is served from a cleared cache
    expect(bm.usedBlocks).toBe(1); // h[0] is still held by its sequence
    // another sequence computes the same blocks again: cached anew while the old copy is held
    bm.allocate(2);
    expect(bm.insert(null, h, t, 0)).toEqual(h);
    expect(bm.usedBlocks).toBe(3);
    bm.releaseCached([h[0]]); // the detached copy's holder
    bm.releaseCached(h);
    expect(bm.usedBlocks).toBe(0);
    expect(bm.cachedBlocks).toBe(2);
    expect(bm.lookup(h, 2)).toBe(2);
  });

  it('does no event work without subscribers', () => {
    const bus = new KvEventBus();
    const bm = new BlockManager(4, 16, 4, bus);
    const t = toks(8, 16);
    bm.allocate(1);
    bm.insert(null, chain(t, 1), t, 0);
    const seen: unknown[] = [];
    bus.subscribe((b) => seen.push(b));
    bus.flush();
    expect(seen).toEqual([]);
  });
});

describe('blockHash', () => {
  it('chains: equal blocks under different parents hash differently; same inputs the same', () => {
    const t = toks(9, 16);
    expect(blockHash(null, t)).toBe(blockHash(null, t));
    expect(blockHash(1, t)).not.toBe(blockHash(2, t));
    expect(Number.isSafeInteger(blockHash(123456789012, t))).toBe(true);
  });
});

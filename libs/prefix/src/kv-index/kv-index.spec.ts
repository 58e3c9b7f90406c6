import fc from 'fast-check';
import { KvBlockIndex, type KvBatch, type KvEvent } from './kv-index';

const stored = (...h: number[]): KvEvent => ({ type: 'BlockStored', blockHashes: h.map(BigInt), parentBlockHash: null });
const removed = (...h: number[]): KvEvent => ({ type: 'BlockRemoved', blockHashes: h.map(BigInt) });
const cleared: KvEvent = { type: 'AllBlocksCleared' };
const b = (seq: number, ...events: KvEvent[]): KvBatch => ({ seq, events });
const q = (...h: number[]): bigint[] => h.map(BigInt);

describe('KvBlockIndex', () => {
  it('applies batches in order and matches leading blocks per replica', () => {
    const ix = new KvBlockIndex();
    expect(ix.offer('a', b(0, stored(1, 2, 3)))).toEqual({ kind: 'applied' });
    expect(ix.offer('b', b(0, stored(1, 9)))).toEqual({ kind: 'applied' });
    expect(ix.offer('a', b(1, removed(3)))).toEqual({ kind: 'applied' });
    expect(Object.fromEntries(ix.match(q(1, 2, 3, 4)))).toEqual({ a: 2, b: 1 });
    expect(ix.match(q(7)).size).toBe(0);
    expect(ix.blockCount('a')).toBe(2);
  });

  it('a block held without its predecessor does not count (prefix match only)', () => {
    const ix = new KvBlockIndex();
    ix.offer('a', b(0, stored(2, 3)));
    expect(ix.match(q(1, 2, 3)).size).toBe(0);
  });

  it('a gap holds the batch and asks for a replay; the replay fills it in order', () => {
    const ix = new KvBlockIndex();
    ix.offer('a', b(0, stored(1)));
    expect(ix.offer('a', b(3, stored(4)))).toEqual({ kind: 'gap', from: 1 });
    expect(ix.state('a')).toBe('replaying');
    expect(ix.usable('a')).toBe(false);
    expect(ix.offer('a', b(4, stored(5)))).toEqual({ kind: 'held' });
    // the replay may resend what was already applied, and may overlap the held batches
    expect(ix.replayed('a', [b(0, stored(1)), b(1, stored(2)), b(2, stored(3)), b(3, stored(4))])).toBe('synced');
    expect(ix.match(q(1, 2, 3, 4, 5)).get('a')).toBe(5);
    expect(ix.expected('a')).toBe(5);
    expect(ix.stats.gaps).toBe(1);
  });

  it('a late subscriber asks for everything from sequence 0', () => {
    const ix = new KvBlockIndex();
    expect(ix.offer('a', b(7, stored(8)))).toEqual({ kind: 'gap', from: 0 });
  });

  it('a join whose replay no longer reaches back to 0 starts from the oldest replayed batch', () => {
    const ix = new KvBlockIndex();
    expect(ix.offer('a', b(900, stored(9)))).toEqual({ kind: 'gap', from: 0 });
    ix.offer('a', b(901, removed(5)));
    // the engine's buffer holds 897.. only: the blocks stored in 897–899 are known, older ones are not
    expect(ix.replayed('a', [b(897, stored(1, 2)), b(898, stored(3)), b(899, removed(2)), b(900, stored(9))])).toBe('synced');
    expect(ix.stats.partialJoins).toBe(1);
    expect(ix.match(q(1, 2)).get('a')).toBe(1);
    expect(ix.match(q(9)).get('a')).toBe(1);
    expect(ix.expected('a')).toBe(902);
    // a hole inside a join's replay still drops it
    expect(ix.offer('b', b(50, stored(1)))).toEqual({ kind: 'gap', from: 0 });
    expect(ix.replayed('b', [b(40, stored(1)), b(42, stored(2))])).toBe('dropped');
  });

  it('join: a replica is synced from the replay before its first live batch', () => {
    const ix = new KvBlockIndex();
    expect(ix.join('a')).toBe(true);
    expect(ix.join('a')).toBe(false);
    expect(ix.usable('a')).toBe(false);
    expect(ix.offer('a', b(12, stored(7)))).toEqual({ kind: 'held' });
    expect(ix.replayed('a', [b(10, stored(1, 2)), b(11, removed(2))])).toBe('synced');
    expect(ix.match(q(1, 2)).get('a')).toBe(1);
    expect(ix.match(q(7)).get('a')).toBe(1);
    // a dropped replica may join again; a synced one may not
    expect(ix.join('a')).toBe(false);
    ix.offer('a', b(20, stored(8)));
    ix.replayFailed('a');
    expect(ix.state('a')).toBe('dropped');
    expect(ix.join('a')).toBe(true);
    expect(ix.replayed('a', [b(15, stored(1)), b(16), b(17), b(18), b(19), b(20, stored(8))])).toBe('synced');
    expect(ix.match(q(8)).get('a')).toBe(1);
    // an engine that never published anything: an empty replay is an exact empty view
    ix.join('b');
    expect(ix.replayed('b', [])).toBe('synced');
    expect(ix.offer('b', b(0, stored(3)))).toEqual({ kind: 'applied' });
  });

  it('a gap in a replica already synced is not a join: a replay that does not reach back drops it', () => {
    const ix = new KvBlockIndex();
    ix.offer('a', b(0, stored(1)));
    expect(ix.offer('a', b(9, stored(2)))).toEqual({ kind: 'gap', from: 1 });
    expect(ix.replayed('a', [b(5, stored(3)), b(6), b(7), b(8), b(9, stored(2))])).toBe('dropped');
    expect(ix.stats.partialJoins).toBe(0);
  });

  it('an incomplete replay drops the replica until an AllBlocksCleared makes it exact again', () => {
    const ix = new KvBlockIndex();
    ix.offer('a', b(0, stored(1)));
    ix.offer('a', b(5, stored(6)));
    expect(ix.replayed('a', [b(1, stored(2)), b(3, stored(4))])).toBe('dropped');
    expect(ix.blockCount('a')).toBe(0);
    expect(ix.match(q(1)).size).toBe(0);
    expect(ix.offer('a', b(6, stored(7)))).toEqual({ kind: 'ignored' });
    expect(ix.offer('a', b(7, stored(70), cleared, stored(1, 2)))).toEqual({ kind: 'applied' });
    expect(ix.state('a')).toBe('synced');
    expect(ix.match(q(1, 2)).get('a')).toBe(2);
    expect(ix.match(q(70)).size).toBe(0);
    expect(ix.offer('a', b(8, stored(3)))).toEqual({ kind: 'applied' });
  });

  it('a failed replay drops the replica; other replicas keep answering', () => {
    const ix = new KvBlockIndex();
    ix.offer('a', b(0, stored(1)));
    ix.offer('b', b(0, stored(1)));
    ix.offer('a', b(2, stored(2)));
    ix.replayFailed('a');
    expect(ix.state('a')).toBe('dropped');
    expect(Object.fromEntries(ix.match(q(1)))).toEqual({ b: 1 });
    expect(ix.stats.drops).toBe(1);
  });

  it('a restarted engine (sequence back to 0) resets its blocks, also from the dropped state', () => {
    const ix = new KvBlockIndex();
    ix.offer('a', b(0, stored(1, 2)));
    ix.offer('a', b(1, stored(3)));
    expect(ix.offer('a', b(0, stored(9)))).toEqual({ kind: 'restart' });
    expect(ix.match(q(1)).size).toBe(0);
    expect(ix.match(q(9)).get('a')).toBe(1);
    ix.offer('a', b(4, stored(5)));
    ix.replayFailed('a');
    expect(ix.offer('a', b(0, stored(1)))).toEqual({ kind: 'restart' });
    expect(ix.state('a')).toBe('synced');
    expect(ix.stats.restarts).toBe(2);
  });

  it('a restart seen after its first batches replays from 0', () => {
    const ix = new KvBlockIndex();
    ix.offer('a', b(0, stored(1)));
    ix.offer('a', b(1, stored(2)));
    ix.offer('a', b(2, stored(3)));
    expect(ix.offer('a', b(1, stored(5)))).toEqual({ kind: 'gap', from: 0 });
    expect(ix.replayed('a', [b(0, stored(4)), b(1, stored(5))])).toBe('synced');
    expect(ix.match(q(4, 5)).get('a')).toBe(2);
    expect(ix.match(q(1)).size).toBe(0);
  });

  it('gives up a replay that holds too many live batches', () => {
    const ix = new KvBlockIndex({ maxHeldBatches: 2 });
    ix.offer('a', b(0));
    ix.offer('a', b(2));
    ix.offer('a', b(3));
    ix.offer('a', b(4));
    expect(ix.state('a')).toBe('dropped');
  });

  it('remove forgets a replica', () => {
    const ix = new KvBlockIndex();
    ix.offer('a', b(0, stored(1)));
    ix.remove('a');
    expect(ix.state('a')).toBeUndefined();
    expect(ix.match(q(1)).size).toBe(0);
  });

  it('property: any delivery order with replays of the missing ranges ends in the same index as in-order delivery', () => {
    const batchArb = fc.array(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 6 })), { maxLength: 4 }), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(batchArb, fc.array(fc.boolean(), { maxLength: 12 }), (spec, lose) => {
        const batches = spec.map((evs, seq) => b(seq, ...evs.map(([st, h]) => (st ? stored(h) : removed(h)))));
        const truth = new KvBlockIndex();
        for (const x of batches) truth.offer('a', x);
        const ix = new KvBlockIndex();
        for (const [i, x] of batches.entries()) {
          if (lose[i] && i < batches.length - 1) continue; // lost on the wire
          const r = ix.offer('a', x);
          if (r.kind === 'gap') ix.replayed('a', batches.slice(r.from, x.seq + 1));
        }
        for (let h = 1; h <= 6; h++) expect(ix.match(q(h)).get('a')).toBe(truth.match(q(h)).get('a'));
        expect(ix.state('a')).toBe('synced');
      }),
    );
  });
});

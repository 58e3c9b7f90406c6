import { PrefixIndex, type PromptKey } from './prefix-index';

const sys = 'S'.repeat(256);
const p = (text: string, blockHashes?: bigint[]): PromptKey => ({ text, blockHashes });

describe('PrefixIndex', () => {
  it('answers from the tree, recording where requests went', () => {
    let t = 0;
    const ix = new PrefixIndex({ tree: { chunkChars: 64 }, now: () => t++ });
    expect(ix.lookup('m', p(sys))).toBeUndefined();
    ix.record('m', p(sys + 'a'.repeat(128)), 'r1');
    const l = ix.lookup('m', p(sys + 'b'.repeat(256)))!;
    expect(l.ratios.get('r1')).toBeCloseTo(4 / 8);
    expect(l.precise.size).toBe(0);
  });

  it('reports local inserts and applies remote ones without echoing them', () => {
    const seen: string[] = [];
    const a = new PrefixIndex();
    const b = new PrefixIndex();
    a.onInsert = (ins) => {
      seen.push(ins.tenant);
      b.applyRemote(ins);
    };
    b.onInsert = () => seen.push('echo');
    a.record('m', p(sys), 'r2');
    expect(seen).toEqual(['r2']);
    expect(b.lookup('m', p(sys))!.ratios.get('r2')).toBe(1);
  });

  it('prefers the precise index for replicas it answers for, the tree for the others', () => {
    const ix = new PrefixIndex({ tree: { chunkChars: 64 } });
    ix.record('m', p(sys), 'r1');
    ix.record('m', p(sys), 'r2');
    ix.kv.offer('r1', { seq: 0, events: [{ type: 'BlockStored', blockHashes: [1n], parentBlockHash: null }] });
    const l = ix.lookup('m', p(sys, [1n, 2n, 3n, 4n]))!;
    expect(l.ratios.get('r1')).toBeCloseTo(1 / 4); // precise: only one of four blocks is cached
    expect(l.ratios.get('r2')).toBe(1); // r2 publishes nothing: the estimate stands
    expect([...l.precise]).toEqual(['r1']);
    // without block hashes (a model without kv_events) the tree answers for everyone
    expect(ix.lookup('m', p(sys))!.ratios.get('r1')).toBe(1);
  });

  it('counts a prompt sent within the pending window on an event-publishing replica until its events arrive', () => {
    let t = 1000;
    const ix = new PrefixIndex({ tree: { chunkChars: 64 }, pendingMs: 500, now: () => t });
    ix.kv.offer('r1', { seq: 0, events: [{ type: 'BlockStored', blockHashes: [9n], parentBlockHash: null }] });
    ix.kv.offer('r2', { seq: 0, events: [{ type: 'BlockStored', blockHashes: [1n], parentBlockHash: null }] });
    ix.record('m', p(sys), 'r1'); // sent to r1 now; r1 has not reported it yet
    t += 400;
    let l = ix.lookup('m', p(sys, [1n, 2n, 3n, 4n]))!;
    expect(l.ratios.get('r1')).toBe(1);
    expect(l.ratios.get('r2')).toBeCloseTo(1 / 4);
    expect(l.precise).toEqual(new Set(['r1', 'r2']));
    // past the window only the events count: r1 never stored it (evicted, or its cache was cleared)
    t += 200;
    l = ix.lookup('m', p(sys, [1n, 2n, 3n, 4n]))!;
    expect(l.ratios.has('r1')).toBe(false);
    expect(l.ratios.get('r2')).toBeCloseTo(1 / 4);
    // the events' view wins when it knows more than the window
    ix.kv.offer('r2', { seq: 1, events: [{ type: 'BlockStored', blockHashes: [2n, 3n, 4n], parentBlockHash: 1n }] });
    ix.record('m', p(sys.slice(0, 64)), 'r2');
    expect(ix.lookup('m', p(sys, [1n, 2n, 3n, 4n]))!.ratios.get('r2')).toBe(1);
  });

  it('forgets a replica in both tiers', () => {
    const ix = new PrefixIndex();
    ix.record('m', p(sys), 'r1');
    ix.kv.offer('r1', { seq: 0, events: [{ type: 'BlockStored', blockHashes: [1n], parentBlockHash: null }] });
    ix.removeReplica('r1');
    expect(ix.lookup('m', p(sys, [1n]))?.ratios.size ?? 0).toBe(0);
  });
});

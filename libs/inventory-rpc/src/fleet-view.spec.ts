import { fleetNode as base, fleetShard as shard } from './testing';
import { WatchedFleet, mergeShardStatus, mergeShardStatuses } from './fleet-view';

describe('mergeShardStatus / WatchedFleet', () => {
  it('keeps the earlier spec when a later status omits it, appends unknown shards', () => {
    const withSpec = shard('a-r0', 'SHARD_STATE_STARTING', [0]);
    const merged = mergeShardStatus([withSpec], shard('a-r0', 'SHARD_STATE_READY'));
    expect(merged).toHaveLength(1);
    expect(merged[0].state).toBe('SHARD_STATE_READY');
    expect(merged[0].spec!.gpuIndices).toEqual([0]);
    expect(mergeShardStatus(merged, shard('b-r0', 'SHARD_STATE_PENDING')).map((s) => s.shardId)).toEqual(['a-r0', 'b-r0']);
  });

  it('merges 20,000 statuses into 20,000 shards in linear work: each shard id is read a bounded number of times', () => {
    let reads = 0;
    const counted = (id: string, state: string) => {
      const s = shard(id, state, [0]);
      delete s.shardId;
      return Object.defineProperty(s, 'shardId', { get: () => (reads++, id), enumerable: true });
    };
    const n = 20_000;
    const current = Array.from({ length: n }, (_, i) => counted(`s${i}-r0`, 'SHARD_STATE_STARTING'));
    const reported = Array.from({ length: n }, (_, i) => counted(`s${n - 1 - i}-r0`, 'SHARD_STATE_READY'));
    const merged = mergeShardStatuses(current, [...reported, counted('new-r0', 'SHARD_STATE_PENDING')]);
    // A per-shard copy or search (the old merge) reads ids n²/2 = 2×10⁸ times.
    expect(reads).toBeLessThan(10 * n);
    expect(merged).toHaveLength(n + 1);
    expect(merged.every((s, i) => i === n || (s.state === 'SHARD_STATE_READY' && s.spec!.gpuIndices[0] === 0))).toBe(true);
    expect(merged[0].shardId).toBe('s0-r0');
    expect(merged[n].shardId).toBe('new-r0');
  });

  it('never keeps an engine secret, and the later of two statuses of one shard wins', () => {
    const secret = { ...shard('a-r0', 'SHARD_STATE_STARTING', [0]) };
    secret.spec = { ...secret.spec, apiKey: 'sek' };
    const merged = mergeShardStatuses([], [secret, shard('a-r0', 'SHARD_STATE_READY')]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ state: 'SHARD_STATE_READY', spec: { apiKey: '', gpuIndices: [0] } });
  });

  it('applies a snapshot, changes and a removal; stats change nothing', () => {
    const v = new WatchedFleet();
    v.apply({ revision: 1, atMs: 0, epoch: 'e', event: 'snapshot', snapshot: { revision: 1, nodes: [base()] } });
    v.apply({ revision: 2, atMs: 0, epoch: 'e', event: 'shardChanged', shardChanged: { nodeId: 'n', status: shard('a-r0', 'SHARD_STATE_READY') } });
    v.apply({ revision: 2, atMs: 0, epoch: 'e', event: 'stats', stats: { nodeId: 'n', stats: null } });
    expect(v.nodes.get('n')!.shards.map((s) => s.shardId)).toEqual(['a-r0']);
    expect(v.revision).toBe(2);
    v.apply({ revision: 3, atMs: 0, epoch: 'e', event: 'nodeRemoved', nodeRemoved: { nodeId: 'n' } });
    expect(v.list()).toEqual([]);
  });
});

import type { FleetNode } from './fleet-view';
import { FleetView, mergeShardStatus } from './fleet-view';

const base = (over: Partial<FleetNode> = {}): FleetNode => ({
  info: { nodeId: 'n', hostname: 'n', mgmtAddr: '', labels: {}, gpus: [], hcas: [], fabrics: [], topology: null, versions: null, cpuCores: 0, memoryTotalMib: 0, simulated: true, diskFreeMib: 0, diskTotalMib: 0, modelCacheDir: '', cpuModel: '', discoveryWarnings: [] },
  connectivity: 'CONNECTIVITY_CONNECTED', connectivityReason: 'registered', connectivitySinceMs: 10, lastSeenMs: 0, registeredAtMs: 0, sessionId: 's', peerCn: '', gpuHealth: [], shards: [],
  intent: 'NODE_INTENT_UNSPECIFIED', intentReason: '', intentSinceMs: 0, intentDrainTimeoutMs: 0, intentActor: '', instanceId: 'i', heartbeatIntervalMs: 5000, ...over,
});

const shard = (id: string, state: string, gpus?: number[]) => ({ shardId: id, replicaId: id.split('-')[0], state, stateSinceMs: 0, message: '', exitCode: 0, exited: false, pid: 0, endpoint: '', adopted: false, spec: gpus ? ({ shardId: id, replicaId: id.split('-')[0], model: 'm', gpuIndices: gpus } as any) : null }) as any;

describe('mergeShardStatus / FleetView', () => {
  it('keeps the earlier spec when a later status omits it, appends unknown shards', () => {
    const withSpec = shard('a-r0', 'SHARD_STATE_STARTING', [0]);
    const merged = mergeShardStatus([withSpec], shard('a-r0', 'SHARD_STATE_READY'));
    expect(merged).toHaveLength(1);
    expect(merged[0].state).toBe('SHARD_STATE_READY');
    expect(merged[0].spec!.gpuIndices).toEqual([0]);
    expect(mergeShardStatus(merged, shard('b-r0', 'SHARD_STATE_PENDING')).map((s) => s.shardId)).toEqual(['a-r0', 'b-r0']);
  });

  it('applies a snapshot, changes and a removal; stats change nothing', () => {
    const v = new FleetView();
    v.apply({ revision: 1, atMs: 0, epoch: 'e', event: 'snapshot', snapshot: { revision: 1, nodes: [base()] } });
    v.apply({ revision: 2, atMs: 0, epoch: 'e', event: 'shardChanged', shardChanged: { nodeId: 'n', status: shard('a-r0', 'SHARD_STATE_READY') } });
    v.apply({ revision: 2, atMs: 0, epoch: 'e', event: 'stats', stats: { nodeId: 'n', stats: null } });
    expect(v.nodes.get('n')!.shards.map((s) => s.shardId)).toEqual(['a-r0']);
    expect(v.revision).toBe(2);
    v.apply({ revision: 3, atMs: 0, epoch: 'e', event: 'nodeRemoved', nodeRemoved: { nodeId: 'n' } });
    expect(v.list()).toEqual([]);
  });
});

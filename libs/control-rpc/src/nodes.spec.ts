import { fleetNode as base, fleetShard as shard } from '@llmgw/inventory-rpc/testing';
import type { FleetNode } from '@llmgw/inventory-rpc';
import { gpuAllocations, nodeState, toControlNode } from './nodes';

describe('nodeState: connectivity first, then operator intent', () => {
  it.each([
    ['connected, no intent → Ready', {}, 'NODE_STATE_READY', 'registered', 10],
    [
      'connected, cordoned → Cordoned with the operator reason',
      { intent: 'NODE_INTENT_CORDONED', intentReason: 'bad fan', intentSinceMs: 20 },
      'NODE_STATE_CORDONED',
      'bad fan',
      20,
    ],
    ['connected, draining → Draining', { intent: 'NODE_INTENT_DRAINING', intentReason: 'maint', intentSinceMs: 30 }, 'NODE_STATE_DRAINING', 'maint', 30],
    [
      'unreachable outranks cordon',
      { connectivity: 'CONNECTIVITY_UNREACHABLE', connectivityReason: '3 missed', connectivitySinceMs: 40, intent: 'NODE_INTENT_CORDONED' },
      'NODE_STATE_UNREACHABLE',
      '3 missed',
      40,
    ],
    [
      'lost outranks drain',
      { connectivity: 'CONNECTIVITY_LOST', connectivityReason: 'gone', connectivitySinceMs: 50, intent: 'NODE_INTENT_DRAINING' },
      'NODE_STATE_LOST',
      'gone',
      50,
    ],
  ] as const)('%s', (_n, over, state, reason, since) => {
    expect(nodeState(base(over as Partial<FleetNode>))).toEqual({ state, reason, sinceMs: since });
  });
});

describe("GPU allocations come from live shards' specs", () => {
  it('counts running shards, skips stopped/failed ones and shards without a spec', () => {
    const shards = [
      shard('a-r0', 'SHARD_STATE_READY', [2, 3]),
      shard('b-r0', 'SHARD_STATE_STOPPED', [0]),
      shard('c-r0', 'SHARD_STATE_FAILED', [1]),
      shard('d-r0', 'SHARD_STATE_READY'),
    ];
    expect(gpuAllocations(shards).map((a) => [a.gpuIndex, a.shardId])).toEqual([
      [2, 'a-r0'],
      [3, 'a-r0'],
    ]);
    expect(toControlNode(base({ shards })).allocations).toHaveLength(2);
  });
});

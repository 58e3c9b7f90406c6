import type { inventoryV1 } from '@llmgw/contracts';
import { ACTOR_METADATA_KEY, type CallOptions } from '@llmgw/grpc';
import type { FleetNode } from '@llmgw/inventory-rpc';
import { InventoryNodeAdmin, type InventoryAdminPort } from './inventory-node-admin';

const node = (id: string, shards: Array<{ shardId: string; replicaId: string; rank: number }> = []): FleetNode =>
  ({
    info: { nodeId: id, gpus: [] },
    connectivity: 'CONNECTIVITY_CONNECTED',
    connectivityReason: 'registered',
    connectivitySinceMs: 1,
    lastSeenMs: 2,
    gpuHealth: [],
    intent: 'NODE_INTENT_UNSPECIFIED',
    intentReason: '',
    intentSinceMs: 0,
    intentDrainTimeoutMs: 0,
    intentActor: '',
    heartbeatIntervalMs: 5000,
    shards: shards.map((s) => ({
      shardId: s.shardId,
      replicaId: s.replicaId,
      state: 'SHARD_STATE_READY',
      spec: { rank: s.rank, replicaId: s.replicaId, gpuIndices: [] },
    })),
  }) as unknown as FleetNode;

function fakeInventory() {
  const calls: Array<{ method: string; req: unknown; actor?: unknown }> = [];
  const nodes = [node('n1', [{ shardId: 'r1-r0', replicaId: 'r1', rank: 0 }]), node('n2', [{ shardId: 'r1-r1', replicaId: 'r1', rank: 1 }])];
  const port: InventoryAdminPort = {
    listNodes: async (req: inventoryV1.ListNodesRequest = {}) => {
      calls.push({ method: 'ListNodes', req });
      const list = req.nodeId ? nodes.filter((n) => n.info!.nodeId === req.nodeId) : nodes;
      return {
        revision: 1,
        epoch: 'e',
        nodes: list,
        stats: req.includeStats ? [{ nodeId: 'n1', stats: { shardId: 'r1-r0', waiting: 2, running: 5 } as never }] : [],
      };
    },
    setNodeIntent: async (req: inventoryV1.SetNodeIntentRequest, opts: CallOptions = {}) => {
      calls.push({ method: 'SetNodeIntent', req, actor: opts.metadata?.get(ACTOR_METADATA_KEY)[0] });
      return { node: { ...nodes[0], intent: req.intent as never, intentReason: req.reason ?? '' }, changed: true, replicaIds: ['r1'] };
    },
    fetchLogs: async function* (req: inventoryV1.FetchLogsRequest, opts: CallOptions = {}) {
      calls.push({ method: 'FetchLogs', req, actor: opts.metadata?.get(ACTOR_METADATA_KEY)[0] });
      yield { requestId: 'x', seq: 0, lines: [], eof: true, truncated: false, errorCode: '', errorMessage: '' };
    } as never,
  };
  return { port, calls };
}

describe('InventoryNodeAdmin: the node half answered from inventory', () => {
  it('forwards the operator to inventory with every intent, and the drain timeout with a drain', async () => {
    const { port, calls } = fakeInventory();
    const admin = new InventoryNodeAdmin(port);
    const r = await admin.drain('n1', 'swap PSU', 2000, 'alice@ops');
    expect(r).toMatchObject({ changed: true, replicaIds: ['r1'], node: { state: 'NODE_STATE_DRAINING', stateReason: 'swap PSU' } });
    await admin.cordon('n1', 'fan', 'bob');
    await admin.uncordon('n1', 'carol');
    expect(calls.filter((c) => c.method === 'SetNodeIntent')).toEqual([
      { method: 'SetNodeIntent', req: { nodeId: 'n1', intent: 'NODE_INTENT_DRAINING', reason: 'swap PSU', drainTimeoutMs: 2000 }, actor: 'alice@ops' },
      { method: 'SetNodeIntent', req: { nodeId: 'n1', intent: 'NODE_INTENT_CORDONED', reason: 'fan', drainTimeoutMs: 0 }, actor: 'bob' },
      { method: 'SetNodeIntent', req: { nodeId: 'n1', intent: 'NODE_INTENT_UNSPECIFIED', reason: '', drainTimeoutMs: 0 }, actor: 'carol' },
    ]);
  });

  it("lists nodes with their shards' engine stats; an unknown node is NOT_FOUND", async () => {
    const admin = new InventoryNodeAdmin(fakeInventory().port);
    const list = await admin.listNodes();
    expect(list.map((n) => [n.info!.nodeId, n.engineStats!.length])).toEqual([
      ['n1', 1],
      ['n2', 0],
    ]);
    expect((await admin.getNode('n2')).info!.nodeId).toBe('n2');
    await expect(admin.getNode('nope')).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND' });
  });

  it("finds a replica's shard (the leader, or a rank) and asks its node for the log, as the operator", async () => {
    const { port, calls } = fakeInventory();
    const admin = new InventoryNodeAdmin(port);
    const signal = new AbortController().signal;
    const logs = (req: object) =>
      admin.logs(
        { nodeId: '', source: 'LOG_SOURCE_SHARD', shardId: '', replicaId: '', tailLines: 5, sinceMs: 0, rank: 0, rankSet: false, ...req } as never,
        async () => undefined,
        signal,
        'dave',
      );
    await logs({ replicaId: 'r1' });
    await logs({ replicaId: 'r1', rank: 1, rankSet: true });
    const fetched = calls.filter((c) => c.method === 'FetchLogs') as Array<{ req: inventoryV1.FetchLogsRequest; actor: unknown }>;
    expect(fetched.map((c) => [c.req.nodeId, c.req.request!.shardId, c.actor])).toEqual([
      ['n1', 'r1-r0', 'dave'],
      ['n2', 'r1-r1', 'dave'],
    ]);
    await expect(logs({ shardId: 'ghost' })).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND', message: 'no node reports shard ghost' });
  });
});

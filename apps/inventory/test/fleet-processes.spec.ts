import { WatchedFleet, InventoryClient } from '@llmgw/inventory-rpc';
import { SimAgent, spawnRole, type SpawnedRole, waitUntil } from '@llmgw/testing';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';

jest.setTimeout(120_000);

const addr = (url: string) => url.replace(/^http:\/\//, '');
const running = (id: string, replica: string) => ({
  shardId: `${replica}-r0`,
  replicaId: replica,
  state: 'SHARD_STATE_READY' as const,
  endpoint: 'http://127.0.0.1:8200',
  spec: { shardId: `${replica}-r0`, replicaId: replica, model: 'llama', engine: 'sim', rank: 0, nnodes: 1, gpuIndices: [0] },
});

describe('inventory processes', () => {
  const procs: SpawnedRole[] = [];
  const agents: SimAgent[] = [];
  const clients: InventoryClient[] = [];
  const redis = new Redis('redis://127.0.0.1:6379');
  const prefix = `test:invproc:${randomBytes(5).toString('hex')}:`;

  afterAll(async () => {
    for (const a of agents) a.close();
    for (const c of clients) c.close();
    for (const p of procs) await p.stop('SIGKILL').catch(() => undefined);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  function inventory(id: string, extra: string[] = []): Promise<SpawnedRole> {
    return spawnRole('inventory', ['--port', '0', '--agent-listen', '127.0.0.1:0', '--admin-port', '0', '--instance-id', id, '--log-level', 'warn', ...extra], {
      timeoutMs: 60_000,
    }).then((p) => (procs.push(p), p));
  }

  it('two instances: a command through instance 2 reaches the agent on 1; SIGKILL of 1 and the node is back in the watch on 2 with its shards', async () => {
    const redisArgs = ['--redis-url', 'redis://127.0.0.1:6379', '--redis-prefix', prefix];
    const one = await inventory('one', redisArgs);
    const two = await inventory('two', redisArgs);
    const agent = new SimAgent({
      address: `${addr(one.urls.agents)},${addr(two.urls.agents)}`,
      nodeId: 'gpu-k-01',
      heartbeatIntervalMs: 200,
      runningShards: [running('gpu-k-01', 'rk')],
    });
    agents.push(agent);
    await agent.start();
    const c2 = new InventoryClient({ address: addr(two.urls.grpc) });
    clients.push(c2);
    const view = new WatchedFleet();
    const w = c2.watchFleet({ onEvent: (e) => view.apply(e) });
    try {
      await waitUntil(() => view.nodes.get('gpu-k-01')?.instanceId === 'one', 'node on instance one, seen through two', { timeoutMs: 30_000, everyMs: 25 });
      const res = await c2.sendShardCommand({
        nodeId: 'gpu-k-01',
        start: { commandId: 'p-1', spec: { shardId: 'rk2-r0', replicaId: 'rk2', model: 'llama', engine: 'sim', rank: 0, nnodes: 1, gpuIndices: [1] } },
      });
      expect(res.ack).toMatchObject({ refId: 'p-1', result: 'ACK_RESULT_ACCEPTED' });
      expect(agent.received.some((m) => m.msg === 'start' && m.start!.commandId === 'p-1')).toBe(true);
      await waitUntil(
        () => view.nodes.get('gpu-k-01')?.shards.some((s) => s.shardId === 'rk2-r0' && s.state === 'SHARD_STATE_READY') ?? false,
        'rk2 ready in the watch',
        { timeoutMs: 30_000, everyMs: 25 },
      );

      await one.stop('SIGKILL');
      await waitUntil(
        () => {
          const n = view.nodes.get('gpu-k-01');
          return !!n && n.instanceId === 'two' && n.connectivity === 'CONNECTIVITY_CONNECTED';
        },
        'node back, connected through two, shards intact',
        { timeoutMs: 30_000, everyMs: 25 },
      );
      expect(
        view.nodes
          .get('gpu-k-01')!
          .shards.map((s) => [s.shardId, s.state])
          .sort(),
      ).toEqual([
        ['rk-r0', 'SHARD_STATE_READY'],
        ['rk2-r0', 'SHARD_STATE_READY'],
      ]);
      // The watch event and the agent's Register acknowledgement travel on different streams: wait for the ack.
      await waitUntil(() => agent.registrations >= 2, 'the agent registered a second time', { timeoutMs: 30_000, everyMs: 25 });
      expect(agent.registrations).toBe(2);
      // Commands now go to the agent's new instance.
      const again = await c2.sendShardCommand({ nodeId: 'gpu-k-01', stop: { commandId: 'p-2', shardId: 'rk2-r0' } });
      expect(again.ack?.result).toBe('ACK_RESULT_ACCEPTED');
    } finally {
      w.close();
    }
  });

  it('the restart hole is closed: a fresh inventory knows the running shards from Register alone', async () => {
    const first = await inventory('solo-1');
    const second = await inventory('solo-2');
    const agent = new SimAgent({
      address: `${addr(first.urls.agents)},${addr(second.urls.agents)}`,
      nodeId: 'gpu-r-01',
      heartbeatIntervalMs: 200,
      runningShards: [running('gpu-r-01', 'ra'), running('gpu-r-01', 'rb')],
    });
    agents.push(agent);
    await agent.start();
    const c2 = new InventoryClient({ address: addr(second.urls.grpc) });
    clients.push(c2);
    expect((await c2.listNodes()).nodes).toEqual([]);
    await first.stop('SIGKILL');
    await waitUntil(async () => (await c2.listNodes()).nodes.some((n) => n.info!.nodeId === 'gpu-r-01'), 'registered with the second inventory', {
      timeoutMs: 30_000,
      everyMs: 25,
    });
    const n = (await c2.listNodes()).nodes.find((x) => x.info!.nodeId === 'gpu-r-01')!;
    expect(n.shards.map((s) => [s.shardId, s.state, s.spec?.model, s.spec?.gpuIndices])).toEqual([
      ['ra-r0', 'SHARD_STATE_READY', 'llama', [0]],
      ['rb-r0', 'SHARD_STATE_READY', 'llama', [0]],
    ]);
  });
});

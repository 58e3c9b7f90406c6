import { fromGrpcError } from '@llmgw/grpc';
import { InventoryClient } from '@llmgw/inventory-rpc';
import { createLogger } from '@llmgw/observability';
import { SimAgent, waitUntil } from '@llmgw/testing';
import { PassThrough } from 'node:stream';
import { start, type RunningInventory } from '../src/service';

jest.setTimeout(60_000);

const quiet = () => createLogger({ service: 'inventory', level: 'warn', destination: new PassThrough().resume() });
const shards = (n: number, state = 'SHARD_STATE_READY' as const) =>
  Array.from({ length: n }, (_, i) => ({ shardId: `junk-${i}-r0`, replicaId: `junk-${i}`, state }));

async function drain<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Bad input at inventory's two ports (docs/inventory.md, "Limits"). */
describe('inventory: bounded input and work', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function inventory(
    extra: Record<string, unknown> = {},
  ): Promise<{ inv: RunningInventory; client: InventoryClient; agent: (nodeId: string, o?: Partial<ConstructorParameters<typeof SimAgent>[0]>) => SimAgent }> {
    const inv = await start({
      log: quiet(),
      config: { agent_listen: '127.0.0.1:0', listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', sweep_interval: 50, ...extra },
    });
    const client = new InventoryClient({ address: inv.address });
    const shared = SimAgent.sharedClient(inv.agentAddress);
    const agents: SimAgent[] = [];
    cleanups.push(async () => {
      for (const a of agents) a.close();
      shared.close();
      client.close();
      await inv.close();
    });
    const agent = (nodeId: string, o: Partial<ConstructorParameters<typeof SimAgent>[0]> = {}) => {
      const a = new SimAgent({ address: inv.agentAddress, client: shared, nodeId, heartbeatIntervalMs: 60_000, reconnect: false, ...o });
      agents.push(a);
      return a;
    };
    return { inv, client, agent };
  }

  it('refuses a 100 KB node id at Register with a bounded status, and the shared connection serves the next agent', async () => {
    const { client, agent } = await inventory();
    const bad = agent('a'.repeat(100_000));
    await expect(bad.start(15_000)).rejects.toMatchObject({ code: 3 });
    const err = fromGrpcError(bad.lastError);
    expect(err.code).toBe('LLMGW_ERR_INVALID_ARGUMENT');
    expect(err.message).toMatch(/^register\.node\.[a-z_.[\]0-9]+: 1000\d\d characters; at most \d+ allowed$/);
    // Same HTTP/2 connection: not wedged.
    await agent('gpu-ok').start(15_000);
    expect((await client.listNodes()).nodes.map((n) => n.info!.nodeId)).toEqual(['gpu-ok']);
  });

  it('refuses a 100 KB id in FetchLogs, ListNodes and SendShardCommand with INVALID_ARGUMENT naming the field; the client connection keeps working', async () => {
    const { client, agent } = await inventory();
    await agent('gpu-1').start();
    const big = 'x'.repeat(100_000);
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['node_id', () => drain(client.fetchLogs({ nodeId: big, request: { source: 'LOG_SOURCE_AGENT' } }))],
      ['request.shard_id', () => drain(client.fetchLogs({ nodeId: 'gpu-1', request: { source: 'LOG_SOURCE_SHARD', shardId: big } }))],
      ['node_id', () => client.listNodes({ nodeId: big })],
      ['stop.shard_id', () => client.sendShardCommand({ nodeId: 'gpu-1', stop: { commandId: 'c1', shardId: big }, fencingToken: 1 })],
      ['request.source', () => drain(client.fetchLogs({ nodeId: 'gpu-1', request: { source: 7 as never } }))],
      ['fencingToken', () => client.sendShardCommand({ nodeId: 'gpu-1', stop: { commandId: 'c1', shardId: 's' }, fencingToken: 2 ** 60 })],
    ];
    for (const [field, call] of cases) {
      const e = fromGrpcError(
        await call().then(
          () => undefined,
          (x) => x,
        ),
      );
      expect([field, e.code, e.message.slice(0, 200)]).toEqual([field, 'LLMGW_ERR_INVALID_ARGUMENT', expect.stringContaining(field)]);
      expect(e.message).toContain(field);
      expect(e.message.length).toBeLessThan(1200);
    }
    expect((await client.listNodes()).nodes.map((n) => n.info!.nodeId)).toEqual(['gpu-1']);
  });

  it('ends a watch asked to resume from a 100 KB epoch with INVALID_ARGUMENT', async () => {
    const { client } = await inventory();
    const errors: unknown[] = [];
    const w = client.watchFleet({
      resumeFrom: { revision: 1, epoch: 'e'.repeat(100_000) },
      onEvent: () => undefined,
      dependency: { lost: (e: unknown) => errors.push(e), ok: () => undefined },
      minBackoffMs: 60_000,
    });
    cleanups.push(() => w.close());
    await waitUntil(() => errors.length > 0, 'the watch refused', { timeoutMs: 20_000, everyMs: 20 });
    expect(fromGrpcError(errors[0])).toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT', message: expect.stringContaining('resume_epoch') });
  });

  it('refuses a heartbeat of 2,000 shards (max_shards_per_node 1024): the stream ends with INVALID_ARGUMENT and the record keeps what it had', async () => {
    const { client, agent } = await inventory();
    const a = agent('gpu-1', { runningShards: shards(3) });
    await a.start();
    a.send({ heartbeat: { seq: 1, sentAtMs: Date.now(), gpus: [], shards: shards(2_000) } });
    await waitUntil(() => a.lastError !== undefined, 'the stream refused', { timeoutMs: 20_000, everyMs: 20 });
    expect(fromGrpcError(a.lastError)).toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT', message: 'heartbeat.shards: 2000 entries; at most 1024 allowed' });
    const n = (await client.listNodes()).nodes[0];
    expect(n.shards).toHaveLength(3);
  });

  it('refuses a heartbeat of 20,000 shards from its size (agent_max_message_bytes 1 MiB), before decoding it, and the record keeps what it had', async () => {
    const { client, agent } = await inventory();
    const a = agent('gpu-1', { runningShards: shards(3) });
    await a.start();
    // With what a real heartbeat carries per shard (an endpoint, a timestamp): about 1.4 MB.
    const big = shards(20_000).map((s) => ({ ...s, endpoint: 'http://10.0.0.1:20000', stateSinceMs: Date.now() }));
    a.send({ heartbeat: { seq: 1, sentAtMs: Date.now(), gpus: [], shards: big } });
    await waitUntil(() => a.lastError !== undefined, 'the stream refused', { timeoutMs: 20_000, everyMs: 20 });
    expect((a.lastError as { code?: number }).code).toBe(8); // RESOURCE_EXHAUSTED: grpc-js read the length, not the message
    const n = (await client.listNodes()).nodes[0];
    expect(n.shards).toHaveLength(3);
  });
});

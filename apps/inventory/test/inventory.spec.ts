import { initCa, issueCert, readCertFiles, fromGrpcError } from '@llmgw/grpc';
import { withActor } from '@llmgw/grpc';
import { WatchedFleet, InventoryClient, type FleetEvent } from '@llmgw/inventory-rpc';
import { createLogger } from '@llmgw/observability';
import { SimAgent, waitUntil } from '@llmgw/testing';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { start, type RunningInventory } from '../src/service';

jest.setTimeout(60_000);

function logSink() {
  const lines: any[] = [];
  const stream = new PassThrough();
  stream.on('data', (b: Buffer) => {
    for (const l of b.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l));
  });
  return { lines, log: createLogger({ service: 'inventory', level: 'info', destination: stream }) };
}

const spec = (replica: string, rank = 0) => ({
  shardId: `${replica}-r${rank}`,
  replicaId: replica,
  model: 'llama',
  profile: 'p',
  engine: 'sim',
  rank,
  nnodes: 1,
  gpuIndices: [0, 1],
  httpPort: 8100,
});

describe('inventory over mTLS (one in-process instance)', () => {
  let dir: string;
  let ca: Buffer;
  let caFiles: Awaited<ReturnType<typeof initCa>>;
  let inv: RunningInventory;
  let client: InventoryClient;
  const agents: SimAgent[] = [];
  const sink = logSink();

  async function nodeCert(cn: string, caOf = caFiles) {
    return readCertFiles(await issueCert({ ca: caOf, dir, name: `${cn}-${randomBytes(3).toString('hex')}`, commonName: cn, usage: 'client', role: 'node' }));
  }

  async function agent(nodeId: string, extra: Partial<ConstructorParameters<typeof SimAgent>[0]> = {}, cn = nodeId) {
    const a = new SimAgent({ address: inv.agentAddress, nodeId, tls: { ca, ...(await nodeCert(cn)) }, heartbeatIntervalMs: 100, ...extra });
    agents.push(a);
    return a;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-inv-'));
    caFiles = await initCa({ dir });
    ca = (await readCertFiles(caFiles)).cert;
    const srv = await issueCert({ ca: caFiles, dir, name: 'inventory', commonName: 'inventory', sans: ['127.0.0.1'], usage: 'server' });
    inv = await start({
      log: sink.log,
      config: {
        agent_listen: '127.0.0.1:0',
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        instance_id: 'inv-a',
        agent_tls: { cert: srv.certPath, key: srv.keyPath, client_ca: caFiles.certPath },
        lost_after: 1500,
        sweep_interval: 50,
        command_timeout: 700,
      },
    });
    client = new InventoryClient({ address: inv.address });
  });

  afterAll(async () => {
    for (const a of agents) a.close();
    client?.close();
    await inv?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers an agent whose certificate CN is its node id, with the shards it already runs', async () => {
    const a = await agent('gpu-a-01', { runningShards: [{ shardId: 'old-r0', replicaId: 'old', state: 'SHARD_STATE_READY', spec: spec('old') }] });
    await a.start();
    const { nodes } = await client.listNodes();
    const n = nodes.find((x) => x.info!.nodeId === 'gpu-a-01')!;
    expect(n).toMatchObject({ connectivity: 'CONNECTIVITY_CONNECTED', peerCn: 'gpu-a-01', instanceId: 'inv-a', heartbeatIntervalMs: 100 });
    expect(n.shards.map((s) => [s.shardId, s.state, s.spec?.model])).toEqual([['old-r0', 'SHARD_STATE_READY', 'llama']]);
    expect(n.info!.gpus).toHaveLength(8);
    const metrics = await (await fetch(`${inv.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/llmgw_agent_connected\{node="gpu-a-01",service="inventory"\} 1/);
    expect(metrics).toMatch(/llmgw_gpu_free\{gpu_class="h100-80g",fabric="none",service="inventory"\} 6/);
    expect(metrics).toMatch(/llmgw_inventory_nodes\{state="ready",service="inventory"\} 1/);
  });

  it('refuses and logs a certificate for node A claiming to be node B', async () => {
    const spoof = await agent('gpu-b-07', { reconnect: false }, 'gpu-a-01');
    await expect(spoof.start(10_000)).rejects.toMatchObject({ code: 7 });
    expect(fromGrpcError(spoof.lastError).code).toBe('LLMGW_ERR_PERMISSION_DENIED');
    const { nodes } = await client.listNodes();
    expect(nodes.map((n) => n.info!.nodeId)).not.toContain('gpu-b-07');
    expect(sink.lines.find((l) => l.msg?.includes('claims differs from its certificate CN'))).toMatchObject({
      level: 'warn',
      claimed: 'gpu-b-07',
      cn: 'gpu-a-01',
    });
    const metrics = await (await fetch(`${inv.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/llmgw_inventory_register_refused_total\{reason="cn_mismatch",service="inventory"\} 1/);
  });

  it.each([
    ['a plaintext client', async () => undefined],
    [
      'a client certificate from another CA',
      async () => {
        const other = await initCa({ dir: mkdtempSync(join(dir, 'other-')) });
        return { ca, ...(await nodeCert('gpu-c-01', other)) };
      },
    ],
  ])('never gives %s a stream', async (_what, tls) => {
    const a = new SimAgent({ address: inv.agentAddress, nodeId: 'gpu-c-01', tls: await tls(), reconnect: false });
    agents.push(a);
    await expect(a.start(10_000)).rejects.toMatchObject({ code: 14 });
    expect(a.received).toEqual([]);
    expect((await client.listNodes()).nodes.map((n) => n.info!.nodeId)).not.toContain('gpu-c-01');
  });

  it('relays a command and its Ack, answers a repeated command id from its record, and fails a command the agent never acknowledges', async () => {
    const events: FleetEvent[] = [];
    const watch = client.watchFleet({ onEvent: (e) => events.push(e) });
    try {
      const res = await client.sendShardCommand({ nodeId: 'gpu-a-01', start: { commandId: 'c-1', spec: spec('rep1') } });
      expect(res).toMatchObject({ ack: { refId: 'c-1', result: 'ACK_RESULT_ACCEPTED', shardId: 'rep1-r0' }, replayed: false });
      await waitUntil(
        () =>
          events.some(
            (e) => e.event === 'shardChanged' && e.shardChanged!.status!.shardId === 'rep1-r0' && e.shardChanged!.status!.state === 'SHARD_STATE_READY',
          ),
        'READY in the watch',
        { timeoutMs: 20_000, everyMs: 20 },
      );
      const again = await client.sendShardCommand({ nodeId: 'gpu-a-01', start: { commandId: 'c-1', spec: spec('rep1') } });
      expect(again).toMatchObject({ ack: { refId: 'c-1', result: 'ACK_RESULT_ACCEPTED' }, replayed: true });
      const a = agents.find((x) => x.o.nodeId === 'gpu-a-01')!;
      expect(a.received.filter((m) => m.msg === 'start')).toHaveLength(1);
      // A new command id for the same shard reaches the agent, which finds it already running.
      const dup = await client.sendShardCommand({ nodeId: 'gpu-a-01', start: { commandId: 'c-2', spec: spec('rep1') } });
      expect(dup.ack!.result).toBe('ACK_RESULT_ALREADY_DONE');

      const mute = await agent('gpu-mute', { onCommand: () => 'ignore' });
      await mute.start();
      const t0 = Date.now();
      await expect(client.sendShardCommand({ nodeId: 'gpu-mute', stop: { commandId: 'c-3', shardId: 'x-r0' } })).rejects.toMatchObject({
        code: 'LLMGW_ERR_DEADLINE_EXCEEDED',
      });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
      await expect(client.sendShardCommand({ nodeId: 'nope', stop: { commandId: 'c-4', shardId: 'x-r0' } })).rejects.toMatchObject({
        code: 'LLMGW_ERR_NOT_FOUND',
      });
      await expect(client.sendShardCommand({ nodeId: 'gpu-a-01', stop: { commandId: '', shardId: '' } })).rejects.toMatchObject({
        code: 'LLMGW_ERR_INVALID_ARGUMENT',
        message: expect.stringContaining('command_id is required'),
      });
      const metrics = await (await fetch(`${inv.adminUrl}/metrics`)).text();
      expect(metrics).toMatch(/llmgw_inventory_command_failures_total\{command="stop",reason="timeout",service="inventory"\} 1/);
      expect(metrics).toMatch(/llmgw_inventory_command_duration_seconds_count\{[^}]*command="start",result="accepted"[^}]*\} 1/);
      expect(metrics).toMatch(/llmgw_gpu_free\{gpu_class="h100-80g",fabric="none",service="inventory"\} 14/);
    } finally {
      watch.close();
    }
  });

  it('refuses a command whose leader fencing token is older than one already seen', async () => {
    const ok = await client.sendShardCommand({ nodeId: 'gpu-a-01', drain: { commandId: 'f-1', shardId: 'old-r0' }, fencingToken: 7 });
    expect(ok.ack!.result).toBe('ACK_RESULT_ACCEPTED');
    await expect(client.sendShardCommand({ nodeId: 'gpu-a-01', drain: { commandId: 'f-2', shardId: 'old-r0' }, fencingToken: 6 })).rejects.toMatchObject({
      code: 'LLMGW_ERR_FAILED_PRECONDITION',
      message: expect.stringContaining('no longer the leader'),
    });
    // Unfenced (operator) commands still pass.
    expect((await client.sendShardCommand({ nodeId: 'gpu-a-01', drain: { commandId: 'f-3', shardId: 'old-r0' } })).ack!.result).toBe('ACK_RESULT_ALREADY_DONE');
  });

  it('marks an agent whose heartbeats stop Unreachable, then Lost, and Ready again when they resume', async () => {
    const a = await agent('gpu-sleepy');
    await a.start();
    const view = new WatchedFleet();
    const states: string[] = [];
    const watch = client.watchFleet({
      onEvent: (e) => {
        view.apply(e);
        const n = view.nodes.get('gpu-sleepy');
        if (n && states[states.length - 1] !== n.connectivity) states.push(n.connectivity);
      },
    });
    try {
      await waitUntil(() => states.length > 0, 'connected in the watch', { timeoutMs: 20_000, everyMs: 20 });
      a.pause();
      await waitUntil(() => view.nodes.get('gpu-sleepy')?.connectivity === 'CONNECTIVITY_LOST', 'lost', { timeoutMs: 20_000, everyMs: 20 });
      expect(view.nodes.get('gpu-sleepy')!.connectivityReason).toMatch(/unseen for more than 1500 ms/);
      const {
        nodes: [node],
      } = await client.listNodes({ nodeId: 'gpu-sleepy' });
      expect(node.connectivity).toBe('CONNECTIVITY_LOST');
      a.resume();
      await waitUntil(() => view.nodes.get('gpu-sleepy')?.connectivity === 'CONNECTIVITY_CONNECTED', 'ready again', { timeoutMs: 20_000, everyMs: 20 });
      expect(states).toEqual(['CONNECTIVITY_CONNECTED', 'CONNECTIVITY_UNREACHABLE', 'CONNECTIVITY_LOST', 'CONNECTIVITY_CONNECTED']);
      expect(view.nodes.get('gpu-sleepy')!.connectivityReason).toBe('heartbeats resumed');
      expect((await client.listNodes({ nodeId: 'gpu-sleepy' })).nodes[0].connectivity).toBe('CONNECTIVITY_CONNECTED');
    } finally {
      watch.close();
    }
  });

  it('records cordon, drain (with its replica drain timeout) and uncordon with reasons, times and the forwarded actor, idempotently', async () => {
    const as = (actor: string) => ({ metadata: withActor(actor) });
    const c1 = await client.setNodeIntent({ nodeId: 'gpu-a-01', intent: 'NODE_INTENT_CORDONED', reason: 'bad fan' }, as('alice'));
    expect(c1).toMatchObject({ changed: true, node: { intent: 'NODE_INTENT_CORDONED', intentReason: 'bad fan', intentActor: 'alice' } });
    expect(c1.node!.intentSinceMs).toBeGreaterThan(0);
    expect((await client.setNodeIntent({ nodeId: 'gpu-a-01', intent: 'NODE_INTENT_CORDONED', reason: 'bad fan' }, as('alice'))).changed).toBe(false);
    const d = await client.setNodeIntent({ nodeId: 'gpu-a-01', intent: 'NODE_INTENT_DRAINING', reason: 'maintenance', drainTimeoutMs: 2000 }, as('bob'));
    expect(d).toMatchObject({
      changed: true,
      node: { intent: 'NODE_INTENT_DRAINING', intentReason: 'maintenance', intentDrainTimeoutMs: 2000, intentActor: 'bob' },
      replicaIds: ['old', 'rep1'],
    });
    // Another timeout is another intent.
    expect(
      (await client.setNodeIntent({ nodeId: 'gpu-a-01', intent: 'NODE_INTENT_DRAINING', reason: 'maintenance', drainTimeoutMs: 5000 }, as('bob'))).changed,
    ).toBe(true);
    const { nodes } = await client.listNodes();
    expect(nodes.find((n) => n.info!.nodeId === 'gpu-a-01')).toMatchObject({
      intent: 'NODE_INTENT_DRAINING',
      intentReason: 'maintenance',
      intentDrainTimeoutMs: 5000,
    });
    const un = await client.setNodeIntent({ nodeId: 'gpu-a-01', intent: 'NODE_INTENT_UNSPECIFIED', reason: 'ignored' }, as('carol'));
    expect(un.node).toMatchObject({ intent: 'NODE_INTENT_UNSPECIFIED', intentReason: '', intentDrainTimeoutMs: 0, intentActor: '' });
    await expect(client.setNodeIntent({ nodeId: 'no-such-node', intent: 'NODE_INTENT_CORDONED' })).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND' });
    await expect(client.setNodeIntent({ nodeId: '', intent: 'NODE_INTENT_CORDONED' })).rejects.toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT' });
    await expect(client.setNodeIntent({ nodeId: 'gpu-a-01', intent: 'NODE_INTENT_DRAINING', drainTimeoutMs: 90_000_000 })).rejects.toMatchObject({
      code: 'LLMGW_ERR_INVALID_ARGUMENT',
      message: expect.stringContaining('24 h'),
    });
    // ListNodes narrows to one node, and carries the latest engine stats on request.
    const one = await client.listNodes({ nodeId: 'gpu-a-01', includeStats: true });
    expect(one.nodes.map((n) => n.info!.nodeId)).toEqual(['gpu-a-01']);
    expect((await client.listNodes({ nodeId: 'nope' })).nodes).toEqual([]);
  });

  it('relays logs of a shard and of the agent', async () => {
    const a = await agent('gpu-logs', {
      logs: { 'rl-r0': ['line 1', 'line 2', 'line 3'], '': ['agent up'] },
      runningShards: [{ shardId: 'rl-r0', replicaId: 'rl', state: 'SHARD_STATE_READY', spec: spec('rl') }],
    });
    await a.start();
    const lines: string[] = [];
    for await (const chunk of client.fetchLogs({ nodeId: 'gpu-logs', request: { source: 'LOG_SOURCE_SHARD', shardId: 'rl-r0', tailLines: 2 } }))
      lines.push(...chunk.lines.map((l) => l.text));
    expect(lines).toEqual(['line 2', 'line 3']);
    const agentLines: string[] = [];
    for await (const chunk of client.fetchLogs({ nodeId: 'gpu-logs', request: { source: 'LOG_SOURCE_AGENT' } }))
      agentLines.push(...chunk.lines.map((l) => l.text));
    expect(agentLines).toEqual(['agent up']);
    await expect(
      (async () => {
        for await (const _c of client.fetchLogs({ nodeId: 'nope', request: { source: 'LOG_SOURCE_AGENT' } })) void _c;
      })(),
    ).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND' });
  });
});

describe('two inventory instances sharing the fleet through Redis', () => {
  const prefix = `test:inv:${randomBytes(5).toString('hex')}:`;
  const base = {
    agent_listen: '127.0.0.1:0',
    listen: '127.0.0.1:0',
    admin_listen: '127.0.0.1:0',
    sweep_interval: 50,
    lost_after: 3000,
    command_timeout: 2000,
    log_level: 'silent' as const,
    // instance_ttl 5 s (announced every third of it): a stall of this jest process does not make one instance see the other gone.
    redis: { url: 'redis://127.0.0.1:6379', key_prefix: prefix, instance_ttl: 5000 },
  };
  const running: RunningInventory[] = [];
  const agents: SimAgent[] = [];
  const clients: Array<{ close(): void }> = [];
  const redis = new Redis('redis://127.0.0.1:6379');

  afterAll(async () => {
    for (const a of agents) a.close();
    for (const c of clients) c.close();
    for (const r of running) await r.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('routes a command sent through instance 2 to the agent on instance 1, shares logs and intent, and fans engine stats out to watchers, not to Redis', async () => {
    const one = await start({ config: { ...base, instance_id: 'one' } });
    const two = await start({ config: { ...base, instance_id: 'two' } });
    running.push(one, two);
    const a = new SimAgent({
      address: one.agentAddress,
      nodeId: 'node-1',
      heartbeatIntervalMs: 100,
      statsIntervalMs: 100,
      logs: { '': ['hello from node-1'] },
    });
    agents.push(a);
    await a.start();
    const c2 = new InventoryClient({ address: two.address });
    clients.push(c2);
    await waitUntil(async () => (await c2.listNodes()).nodes.some((n) => n.info!.nodeId === 'node-1'), 'instance 2 sees node-1', {
      timeoutMs: 20_000,
      everyMs: 20,
    });
    const res = await c2.sendShardCommand({ nodeId: 'node-1', start: { commandId: 'x-1', spec: spec('rx') } });
    expect(res.ack).toMatchObject({ refId: 'x-1', result: 'ACK_RESULT_ACCEPTED' });
    expect(a.received.some((m) => m.msg === 'start' && m.start!.commandId === 'x-1')).toBe(true);
    const lines: string[] = [];
    for await (const ch of c2.fetchLogs({ nodeId: 'node-1', request: { source: 'LOG_SOURCE_AGENT' } })) lines.push(...ch.lines.map((l) => l.text));
    expect(lines).toEqual(['hello from node-1']);
    expect((await c2.setNodeIntent({ nodeId: 'node-1', intent: 'NODE_INTENT_CORDONED', reason: 'via two' })).changed).toBe(true);
    const c1 = new InventoryClient({ address: one.address });
    clients.push(c1);
    await waitUntil(
      async () => (await c1.listNodes()).nodes.find((n) => n.info!.nodeId === 'node-1')?.intent === 'NODE_INTENT_CORDONED',
      'instance 1 sees the cordon',
      { timeoutMs: 20_000, everyMs: 20 },
    );
    expect(await redis.hget(`${prefix}inventory:intent`, 'node-1')).toContain('via two');
    // Engine stats are not written to Redis (routers and admission scrape engines themselves; docs/inventory.md).
    expect(await redis.keys(`${prefix}endpoint-stats:*`)).toEqual([]);
    // Stats reach watchers on the other instance too.
    const seen: FleetEvent[] = [];
    const w = c2.watchFleet({ includeStats: true, onEvent: (e) => seen.push(e) });
    try {
      await waitUntil(() => seen.some((e) => e.event === 'stats' && e.stats!.nodeId === 'node-1'), 'stats event on instance 2', {
        timeoutMs: 20_000,
        everyMs: 20,
      });
    } finally {
      w.close();
    }
  });

  it('a watch on instance 2 resumes without a snapshot after a disconnect, and intent survives a restart of every instance', async () => {
    const [one, two] = running;
    const c2 = new InventoryClient({ address: two.address });
    clients.push(c2);
    const view = new WatchedFleet();
    const got: FleetEvent[] = [];
    let w = c2.watchFleet({ onEvent: (e) => (got.push(e), view.apply(e)) });
    await waitUntil(() => got.length > 0, 'snapshot', { timeoutMs: 20_000, everyMs: 20 });
    w.close();
    const c1 = new InventoryClient({ address: one.address });
    clients.push(c1);
    await c1.sendShardCommand({ nodeId: 'node-1', stop: { commandId: 'x-2', shardId: 'rx-r0' } });
    const before = got.length;
    w = c2.watchFleet({ resumeFrom: { revision: view.revision, epoch: view.epoch }, onEvent: (e) => (got.push(e), view.apply(e)) });
    await waitUntil(() => view.nodes.get('node-1')?.shards.find((s) => s.shardId === 'rx-r0')?.state === 'SHARD_STATE_STOPPED', 'resumed events', {
      timeoutMs: 20_000,
      everyMs: 20,
    });
    w.close();
    expect(got.slice(before).some((e) => e.event === 'snapshot')).toBe(false);
    for (let i = 1; i < got.length; i++) expect(got[i].revision).toBe(got[i - 1].revision + 1);

    for (const r of running.splice(0)) await r.close();
    const three = await start({ config: { ...base, instance_id: 'three' } });
    running.push(three);
    agents[0].close();
    const again = new SimAgent({ address: three.agentAddress, nodeId: 'node-1', heartbeatIntervalMs: 100 });
    agents.push(again);
    await again.start();
    const c3 = new InventoryClient({ address: three.address });
    clients.push(c3);
    const node1 = async () => (await c3.listNodes({ nodeId: 'node-1' })).nodes[0];
    await waitUntil(
      async () => (await node1())?.connectivity === 'CONNECTIVITY_CONNECTED' && (await node1()).intent === 'NODE_INTENT_CORDONED',
      'node-1 connected to three',
      { timeoutMs: 20_000, everyMs: 20 },
    );
    expect((await node1()).intentReason).toBe('via two');
  });
});

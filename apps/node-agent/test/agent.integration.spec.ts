import { freePort, waitUntil } from '@llmgw/testing';
/**
 * The issue's integration test: a real agent process (bin/llmgw.cjs
 * node-agent run) supervising real sim-engine processes, against a test
 * inventory speaking the real proto over mTLS with the real server glue
 * (@llmgw/agent-rpc). Start, ready, logs, stats, drain, stop; SIGKILL the
 * agent, start it again, and the engine is still serving and reported as
 * adopted; a certificate for node A cannot register as node B.
 */
import type * as grpc from '@grpc/grpc-js';
import { agentConnectHandler, agentServiceDefinition, type AgentSession } from '@llmgw/agent-rpc';
import type { agentV1 } from '@llmgw/contracts';
import { createServer, initCa, issueCert, listen, shutdown } from '@llmgw/grpc';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

const ROOT = join(__dirname, '../../..');
const LLMGW = join(ROOT, 'bin/llmgw.cjs');

describe('node-agent against a test inventory over mTLS', () => {
  let dir: string;
  let server: grpc.Server;
  let address: string;
  const sessions: AgentSession[] = [];
  const statuses: Array<{ node: string; session: string; s: agentV1.ShardStatus__Output }> = [];
  const stats: agentV1.EngineStats__Output[] = [];
  const beats: agentV1.Heartbeat__Output[] = [];
  const closed: Array<{ session: string; code?: string }> = [];
  const agents: Array<{ p: ChildProcess; out: string[] }> = [];
  const pgids = new Set<number>();

  const statusOf = (shardId: string, pred: (s: agentV1.ShardStatus__Output) => boolean, from = 0) =>
    statuses.slice(from).find((x) => x.s.shardId === shardId && pred(x.s))?.s;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-agent-it-'));
    const ca = await initCa({ dir });
    const srv = await issueCert({ ca, dir, name: 'inventory', commonName: 'inventory', sans: ['127.0.0.1', 'localhost'], usage: 'server' });
    await issueCert({ ca, dir, name: 'node-a', commonName: 'node-a', usage: 'client' });
    server = createServer();
    server.addService(agentServiceDefinition(), {
      Connect: agentConnectHandler({
        requireCert: true,
        commandTimeoutMs: 30_000,
        onRegister: (s) => {
          sessions.push(s);
        },
        onShardStatus: (s, st) => {
          statuses.push({ node: s.nodeId, session: s.sessionId, s: st });
          if (st.pgid) pgids.add(st.pgid);
        },
        onStats: (_s, st) => {
          stats.push(st);
        },
        onHeartbeat: (_s, hb) => {
          beats.push(hb);
        },
        onClose: (s, err) => {
          closed.push({ session: s.sessionId, code: err?.code });
        },
      }),
    });
    const tls = { ca: readFileSync(ca.certPath), cert: readFileSync(srv.certPath), key: readFileSync(srv.keyPath), requireClientCert: true };
    address = `127.0.0.1:${await listen(server, '127.0.0.1', 0, { tls })}`;
  }, 60_000);

  afterAll(async () => {
    for (const a of agents) if (a.p.exitCode === null && a.p.signalCode === null) a.p.kill('SIGKILL');
    for (const g of pgids) {
      try {
        process.kill(-g, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await shutdown(server, 500);
    rmSync(dir, { recursive: true, force: true });
  });

  function writeConfig(name: string, nodeId: string): string {
    const cfg = {
      node_id: nodeId,
      server: address,
      mgmt_addr: '127.0.0.1',
      engine_bind_host: '127.0.0.1',
      tls: { ca: join(dir, 'ca.crt'), cert: join(dir, 'node-a.crt'), key: join(dir, 'node-a.key') },
      labels: { rack: 'r12' },
      fake_gpus: '2xh100-80g',
      work_dir: join(dir, `work-${name}`),
      engines: { sim: {} },
      heartbeat_interval: '300ms',
      stats_interval: '300ms',
      health_interval: '100ms',
      stop_grace: '5s',
      log_level: 'info',
      admin_listen: '127.0.0.1:0',
    };
    const p = join(dir, `${name}.yaml`);
    writeFileSync(p, stringify(cfg));
    return p;
  }

  function startAgentProcess(config: string) {
    const p = spawn(process.execPath, [LLMGW, 'node-agent', 'run', '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '' },
    });
    const out: string[] = [];
    p.stdout!.on('data', (b) => out.push(String(b)));
    p.stderr!.on('data', (b) => out.push(String(b)));
    const a = { p, out };
    agents.push(a);
    return a;
  }

  const sim = (shardId: string, port: number): agentV1.ShardSpec => ({
    shardId,
    replicaId: shardId.replace(/-r0$/, ''),
    model: 'sim-llama',
    profile: 'default',
    engine: 'sim',
    rank: 0,
    nnodes: 1,
    gpuIndices: [shardId.startsWith('keep') ? 0 : 1],
    httpPort: port,
    servedModelName: 'sim-llama',
    args: ['--decode-tps', '0', '--prefill-tps', '0'],
    startupTimeoutMs: 120_000,
  });

  it('start, ready, logs, stats, drain, stop; SIGKILL the agent and restart: the engine keeps serving and is adopted', async () => {
    const config = writeConfig('a', 'node-a');
    const first = startAgentProcess(config);
    const s1 = await waitUntil(() => sessions.find((s) => s.nodeId === 'node-a'), 'node-a to register', {
      timeoutMs: 90_000,
      everyMs: 25,
      seen: () => first.out.join(''),
    });
    expect(s1.peerCommonName).toBe('node-a');
    const node = s1.register.node!;
    expect(node).toMatchObject({ nodeId: 'node-a', mgmtAddr: '127.0.0.1', simulated: true, labels: { rack: 'r12' } });
    expect(node.gpus.map((g) => g.gpuClass)).toEqual(['h100-80g', 'h100-80g']);
    expect(node.cpuCores).toBeGreaterThan(0);
    expect(node.versions!.engines).toEqual([expect.objectContaining({ engine: 'sim', error: '' })]);
    expect(s1.register.runningShards).toEqual([]);
    expect(s1.register.gpuHealth).toHaveLength(2);

    const keepPort = await freePort();
    const gonePort = await freePort();
    const from = statuses.length;
    await expect(s1.startShard(sim('keep-r0', keepPort))).resolves.toMatchObject({ result: 'ACK_RESULT_ACCEPTED', shardId: 'keep-r0' });
    await expect(s1.startShard(sim('keep-r0', keepPort))).resolves.toMatchObject({ result: 'ACK_RESULT_ALREADY_DONE' });
    await expect(s1.startShard(sim('gone-r0', gonePort))).resolves.toMatchObject({ result: 'ACK_RESULT_ACCEPTED' });
    await expect(s1.startShard({ ...sim('bad-r0', gonePort), gpuIndices: [7] })).resolves.toMatchObject({
      result: 'ACK_RESULT_REJECTED',
      errorCode: 'LLMGW_ERR_INVALID_ARGUMENT',
    });

    const ready = await waitUntil(
      () => {
        const a = statusOf('keep-r0', (s) => s.state === 'SHARD_STATE_READY', from);
        const b = statusOf('gone-r0', (s) => s.state === 'SHARD_STATE_READY', from);
        return a && b && a;
      },
      'both shards READY',
      { timeoutMs: 120_000, everyMs: 25, seen: () => statuses.slice(from).map((x) => [x.s.shardId, x.s.state, x.s.message]) },
    );
    expect(ready).toMatchObject({ endpoint: `http://127.0.0.1:${keepPort}`, message: 'serving sim-llama', adopted: false });
    expect(statusOf('keep-r0', (s) => s.state === 'SHARD_STATE_PENDING', from)?.spec?.shardId).toBe('keep-r0');
    const chat = await fetch(`http://127.0.0.1:${keepPort}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim-llama', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
    });
    expect(chat.status).toBe(200);

    const shardLogs = await s1.logs({ source: 'LOG_SOURCE_SHARD', shardId: 'keep-r0', tailLines: 50 });
    expect(shardLogs.lines.some((l) => l.text.includes('"msg":"listening"'))).toBe(true);
    const agentLogs = await s1.logs({ source: 'LOG_SOURCE_AGENT', tailLines: 200 });
    expect(agentLogs.lines.some((l) => l.text.includes('registered with inventory'))).toBe(true);
    await expect(s1.logs({ source: 'LOG_SOURCE_SHARD', shardId: 'nope', tailLines: 5 })).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND' });
    await waitUntil(() => stats.find((x) => x.shardId === 'keep-r0' && !x.error && Number(x.requestsFinishedTotal) >= 1), 'engine stats', {
      timeoutMs: 90_000,
      everyMs: 25,
    });
    await waitUntil(() => beats.find((b) => b.shards.filter((s) => s.state === 'SHARD_STATE_READY').length === 2), 'a heartbeat listing both shards', {
      timeoutMs: 90_000,
      everyMs: 25,
    });

    // Started through the service host: one listening line naming the admin app, /readyz = registered, agent metrics.
    const listening = first.out
      .join('')
      .split('\n')
      .filter((l) => l.includes('"msg":"listening"'))
      .map((l) => JSON.parse(l));
    expect(listening).toHaveLength(1);
    expect(listening[0]).toMatchObject({ service: 'node-agent', nodeId: 'node-a', gpus: 2, simulated: true });
    const adminUrl = listening[0].urls.admin as string;
    const readyz = await fetch(`${adminUrl}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await readyz.json()).toMatchObject({ stream: 'registered', shards: 2 });
    const metrics = await (await fetch(`${adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/llmgw_agent_shards\{state="ready",service="node-agent"\} 2/);
    expect(metrics).toMatch(/llmgw_agent_stream_registered\{service="node-agent"\} 1/);
    expect(metrics).toMatch(/llmgw_agent_gpus\{gpu_class="h100-80g",service="node-agent"\} 2/);

    await expect(s1.drainShard('gone-r0', { reason: 'scale down' })).resolves.toMatchObject({ result: 'ACK_RESULT_ACCEPTED' });
    await expect(s1.drainShard('gone-r0')).resolves.toMatchObject({ result: 'ACK_RESULT_ALREADY_DONE' });
    await waitUntil(() => statusOf('gone-r0', (s) => s.state === 'SHARD_STATE_DRAINING' && s.message === 'drained: no requests in flight', from), 'drained', {
      timeoutMs: 90_000,
      everyMs: 25,
    });
    await expect(s1.stopShard('gone-r0', { graceMs: 5_000, reason: 'scale down' })).resolves.toMatchObject({ result: 'ACK_RESULT_ACCEPTED' });
    const stopped = await waitUntil(() => statusOf('gone-r0', (s) => s.state === 'SHARD_STATE_STOPPED', from), 'STOPPED', { timeoutMs: 90_000, everyMs: 25 });
    expect(stopped).toMatchObject({ message: 'stopped: scale down', exited: true });
    await expect(fetch(`http://127.0.0.1:${gonePort}/health`)).rejects.toThrow();
    await expect(s1.stopShard('gone-r0')).resolves.toMatchObject({ result: 'ACK_RESULT_ALREADY_DONE' });

    // The agent dies hard. Its engine must not.
    first.p.kill('SIGKILL');
    await waitUntil(() => closed.find((c) => c.session === s1.sessionId), 'inventory to see the stream end', { timeoutMs: 90_000, everyMs: 25 });
    expect((await fetch(`http://127.0.0.1:${keepPort}/health`)).status).toBe(200);

    const second = startAgentProcess(config);
    const s2 = await waitUntil(() => sessions.find((s) => s.nodeId === 'node-a' && s.sessionId !== s1.sessionId), 'node-a to register again', {
      timeoutMs: 90_000,
      everyMs: 25,
      seen: () => second.out.join(''),
    });
    expect(s2.register.runningShards).toEqual([
      expect.objectContaining({
        shardId: 'keep-r0',
        state: 'SHARD_STATE_READY',
        adopted: true,
        pid: ready.pid,
        pgid: ready.pgid,
        spec: expect.objectContaining({ shardId: 'keep-r0', httpPort: keepPort }),
      }),
    ]);
    expect(s2.register.runningShards[0].message).toMatch(/^adopted from a previous agent process/);
    expect((await fetch(`http://127.0.0.1:${keepPort}/v1/models`)).status).toBe(200);
    // Idempotent across agent restarts too.
    await expect(s2.startShard(sim('keep-r0', keepPort))).resolves.toMatchObject({ result: 'ACK_RESULT_ALREADY_DONE' });
    const adoptedLogs = await s2.logs({ source: 'LOG_SOURCE_SHARD', shardId: 'keep-r0', tailLines: 50 });
    expect(adoptedLogs.lines.length).toBeGreaterThan(0);

    const from2 = statuses.length;
    await expect(s2.stopShard('keep-r0', { reason: 'test over' })).resolves.toMatchObject({ result: 'ACK_RESULT_ACCEPTED' });
    await waitUntil(() => statusOf('keep-r0', (s) => s.state === 'SHARD_STATE_STOPPED', from2), 'the adopted shard STOPPED', {
      timeoutMs: 90_000,
      everyMs: 25,
    });
    await expect(fetch(`http://127.0.0.1:${keepPort}/health`)).rejects.toThrow();
    second.p.kill('SIGTERM');
    await waitUntil(() => second.p.exitCode !== null || second.p.signalCode !== null, 'the agent to exit on SIGTERM', { timeoutMs: 30_000, everyMs: 25 });
    expect(second.p.exitCode).toBe(0);
  }, 300_000);

  it("node A's certificate cannot register as node B", async () => {
    const before = sessions.length;
    const liar = startAgentProcess(writeConfig('b', 'node-b'));
    await waitUntil(() => liar.out.join('').includes('LLMGW_ERR_PERMISSION_DENIED'), 'the refusal in the agent log', {
      timeoutMs: 90_000,
      everyMs: 25,
      seen: () => liar.out.join(''),
    });
    expect(liar.out.join('')).toMatch(/claimed identity \\"node-b\\" does not match certificate CN \\"node-a\\"/);
    expect(sessions.slice(before).some((s) => s.nodeId === 'node-b')).toBe(false);
    expect(liar.p.exitCode).toBeNull(); // it keeps retrying with backoff
    liar.p.kill('SIGTERM');
  }, 120_000);
});

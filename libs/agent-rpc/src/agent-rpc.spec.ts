import * as grpc from '@grpc/grpc-js';
import type { agentV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { createLogger } from '@llmgw/observability';
import { createServer, fromGrpcError, initCa, issueCert, listen, makeClient, readCertFiles, shutdown } from '@llmgw/grpc';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import {
  AgentSession,
  AgentStreamClient,
  type AgentStreamState,
  agentConnectHandler,
  agentMessageBounds,
  agentServiceClient,
  agentServiceDefinition,
  backoffDelay,
  isRefusal,
  validateAgentMessage,
  validateRegister,
} from './index';
import { waitUntil } from '@llmgw/contracts/wait';

/** Resolves with what `pred` returns once it holds; fails loudly after `timeoutMs`. */
const waitFor = <T>(what: string, pred: () => T | undefined | false, timeoutMs = 10_000) => waitUntil(pred, what, { timeoutMs });

describe('agent message validation', () => {
  const reg = (over: Partial<agentV1.Register__Output> = {}): agentV1.Register__Output => ({
    node: { nodeId: 'gpu-1' } as agentV1.NodeInfo__Output,
    runningShards: [],
    sessionId: 's',
    agentStartedAtMs: 0,
    sentAtMs: 0,
    heartbeatIntervalMs: 0,
    gpuHealth: [],
    ...over,
  });
  const shards = (n: number) => Array.from({ length: n }, (_, i) => ({ shardId: `s${i}`, state: 'SHARD_STATE_READY' }) as agentV1.ShardStatus__Output);
  const refusal = (f: () => void): LlmgwError => {
    try {
      f();
    } catch (e) {
      return e as LlmgwError;
    }
    throw new Error('not refused');
  };

  it('refuses a 100 KB node id without echoing it', () => {
    const e = refusal(() => validateRegister(reg({ node: { nodeId: 'a'.repeat(100_000) } as agentV1.NodeInfo__Output })));
    expect(e).toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT', message: 'register.node.node_id: 100000 characters; at most 63 allowed' });
    const e2 = refusal(() => validateRegister(reg({ node: { nodeId: 'B'.repeat(64) } as agentV1.NodeInfo__Output })));
    expect(e2.message).toBe('register.node.node_id: 64 characters; at most 63 allowed');
    expect(refusal(() => validateRegister(reg({ node: { nodeId: 'Bad' } as agentV1.NodeInfo__Output }))).message).toContain('must match');
  });

  it('caps the shards of a Register and a Heartbeat (configurable), and every string, naming the field', () => {
    expect(() => validateRegister(reg({ runningShards: shards(1024) }))).not.toThrow();
    expect(refusal(() => validateRegister(reg({ runningShards: shards(1025) }))).message).toBe('register.running_shards: 1025 entries; at most 1024 allowed');
    const hb = (n: number): agentV1.AgentMessage__Output => ({ msg: 'heartbeat', heartbeat: { seq: 1, sentAtMs: 0, gpus: [], host: null, shards: shards(n) } });
    expect(refusal(() => validateAgentMessage(hb(20_000))).message).toBe('heartbeat.shards: 20000 entries; at most 1024 allowed');
    expect(() => validateAgentMessage(hb(20_000), agentMessageBounds(20_000))).not.toThrow();
    const longMsg: agentV1.AgentMessage__Output = { msg: 'shard', shard: { ...shards(1)[0], message: 'm'.repeat(5000) } };
    expect(refusal(() => validateAgentMessage(longMsg)).message).toBe('shard.message: 5000 characters; at most 4096 allowed');
    expect(refusal(() => validateAgentMessage({ msg: 'shard', shard: { ...shards(1)[0], state: 42 as never } })).message).toBe(
      'shard.state is not a known ShardState',
    );
    expect(
      refusal(() =>
        validateAgentMessage({
          msg: 'heartbeat',
          heartbeat: { seq: 1, sentAtMs: 0, gpus: [], host: null, shards: [shards(1)[0], { ...shards(1)[0], state: 9 as never }] },
        }),
      ).message,
    ).toBe('heartbeat.shards[1].state is not a known ShardState');
    expect(refusal(() => validateRegister(reg({ runningShards: [{ ...shards(1)[0], state: 9 as never }] }))).message).toBe(
      'register.running_shards[0].state is not a known ShardState',
    );
    expect(
      refusal(() =>
        validateAgentMessage({ msg: 'heartbeat', heartbeat: { seq: 1, sentAtMs: 0, gpus: [], host: null, shards: [{ ...shards(1)[0], shardId: '' }] } }),
      ).message,
    ).toBe('heartbeat.shards[].shard_id is required');
  });
});

describe('backoffDelay', () => {
  const o = { initialMs: 500, maxMs: 30_000, multiplier: 2, jitter: 0.5 };
  it.each([
    [0, 0, 250],
    [0, 0.999999, 500],
    [1, 0, 500],
    [3, 0.5, 3_000],
    [10, 0, 15_000],
    [10, 0.999999, 30_000],
  ])('attempt %i with random %f → %i ms (min(30 s, 500·2^n), half of it jittered)', (attempt, r, want) => {
    expect(backoffDelay(attempt, o, () => r)).toBe(want);
  });
  it('no jitter gives the exact exponential', () => {
    expect(backoffDelay(2, { ...o, jitter: 0 }, () => 0.7)).toBe(2_000);
  });
});

describe('agent stream over mTLS', () => {
  let dir: string;
  let server: grpc.Server;
  let addr: string;
  let ca: Buffer;
  let nodeA: { cert: Buffer; key: Buffer };
  const sessions: AgentSession[] = [];
  const beats: agentV1.Heartbeat__Output[] = [];
  const statuses: agentV1.ShardStatus__Output[] = [];
  const closed: Array<{ node: string; err?: LlmgwError }> = [];
  const clients: AgentStreamClient[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-agent-rpc-'));
    const caFiles = await initCa({ dir });
    ca = (await readCertFiles(caFiles)).cert;
    const srv = await readCertFiles(await issueCert({ ca: caFiles, dir, name: 'inventory', commonName: 'inventory', sans: ['127.0.0.1'], usage: 'server' }));
    nodeA = await readCertFiles(await issueCert({ ca: caFiles, dir, name: 'gpu-a-01', commonName: 'gpu-a-01', usage: 'client' }));
    server = createServer();
    server.addService(agentServiceDefinition(), {
      Connect: agentConnectHandler({
        requireCert: true,
        commandTimeoutMs: 2_000,
        onRegister: (s) => {
          sessions.push(s);
        },
        onHeartbeat: (_s, hb) => {
          beats.push(hb);
        },
        onShardStatus: (_s, st) => {
          statuses.push(st);
        },
        onClose: (s, err) => {
          closed.push({ node: s.nodeId, err });
        },
      }),
    });
    addr = `127.0.0.1:${await listen(server, '127.0.0.1', 0, { tls: { ca, ...srv, requireClientCert: true } })}`;
  }, 30_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await shutdown(server, 500);
    rmSync(dir, { recursive: true, force: true });
  });

  function agent(
    nodeId: string,
    onCommand: (m: agentV1.ControlMessage__Output, send: (x: agentV1.AgentMessage) => boolean) => void,
    states?: Array<{ s: AgentStreamState; err?: LlmgwError }>,
  ) {
    const c = new AgentStreamClient({
      address: addr,
      tls: { ca, ...nodeA },
      register: () => ({
        node: { nodeId, hostname: nodeId },
        runningShards: [{ shardId: 'old-r0', replicaId: 'old', state: 'SHARD_STATE_READY', adopted: true }],
      }),
      heartbeat: () => ({ gpus: [{ index: 0, health: 'GPU_HEALTH_OK' }], shards: [] }),
      heartbeatIntervalMs: 50,
      backoff: { initialMs: 20, maxMs: 100, multiplier: 2, jitter: 0.5 },
      onCommand,
      onState: (s, info) => states?.push({ s, err: info.error }),
    });
    clients.push(c);
    c.start();
    return c;
  }

  it("registers, heartbeats, and settles commands with the agent's acks and log chunks", async () => {
    const c = agent('gpu-a-01', (m, send) => {
      if (m.msg === 'start') send({ ack: { refId: m.start!.commandId, result: 'ACK_RESULT_ACCEPTED', shardId: m.start!.spec!.shardId } });
      if (m.msg === 'stop') send({ ack: { refId: m.stop!.commandId, result: 'ACK_RESULT_ALREADY_DONE', shardId: m.stop!.shardId } });
      if (m.msg === 'logs') {
        send({ logs: { requestId: m.logs!.requestId, seq: 0, lines: [{ atMs: 1, stream: 'LOG_STREAM_STDOUT', text: 'one' }] } });
        send({ logs: { requestId: m.logs!.requestId, seq: 1, lines: [{ atMs: 2, stream: 'LOG_STREAM_STDERR', text: 'two' }], eof: true, truncated: true } });
      }
    });
    await c.whenRegistered();
    const s = await waitFor('session', () => sessions.find((x) => x.sessionId === c.sessionId));
    expect(s.nodeId).toBe('gpu-a-01');
    expect(s.peerCommonName).toBe('gpu-a-01');
    expect(s.register.runningShards[0]).toMatchObject({ shardId: 'old-r0', adopted: true });
    expect(s.register.heartbeatIntervalMs).toBe(50);
    await waitFor('two heartbeats', () => beats.length >= 2);
    expect(beats.slice(0, 2).map((b) => Number(b.seq))).toEqual([1, 2]);

    await expect(s.startShard({ shardId: 'r1-r0', replicaId: 'r1', engine: 'sim' })).resolves.toMatchObject({
      result: 'ACK_RESULT_ACCEPTED',
      shardId: 'r1-r0',
    });
    await expect(s.stopShard('r1-r0', { reason: 'test' })).resolves.toMatchObject({ result: 'ACK_RESULT_ALREADY_DONE' });
    const logs = await s.logs({ source: 'LOG_SOURCE_SHARD', shardId: 'r1-r0', tailLines: 10 });
    expect(logs).toEqual({
      lines: [expect.objectContaining({ text: 'one' }), expect.objectContaining({ text: 'two', stream: 'LOG_STREAM_STDERR' })],
      truncated: true,
    });
    expect(c.send({ shard: { shardId: 'r1-r0', state: 'SHARD_STATE_STOPPED' } })).toBe(true);
    await waitFor('shard status', () => statuses.find((x) => x.shardId === 'r1-r0'));

    // A command the agent never answers times out; the stream stays up.
    await expect(s.drainShard('r1-r0')).rejects.toMatchObject({ code: 'LLMGW_ERR_DEADLINE_EXCEEDED' });

    // inventory ends the stream: the agent reconnects and registers again with the same session id.
    const before = sessions.length;
    s.close();
    await expect(s.startShard({ shardId: 'x' })).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
    await waitFor('re-register', () => sessions.length > before);
    expect(sessions[sessions.length - 1].sessionId).toBe(c.sessionId);
    expect(closed.some((x) => x.node === 'gpu-a-01')).toBe(true);
    await c.close();
    expect(c.state).toBe('closed');
  }, 30_000);

  it('a certificate for node A cannot register as node B: refused (not an outage), said at error, retried slowly', async () => {
    const states: Array<{ s: AgentStreamState; err?: LlmgwError; retryMs?: number }> = [];
    const lines: Array<{ level: string; msg: string; code?: string }> = [];
    const dest = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        cb();
      },
    });
    const before = sessions.length;
    const c = new AgentStreamClient({
      address: addr,
      tls: { ca, ...nodeA },
      register: () => ({ node: { nodeId: 'gpu-b-07', hostname: 'gpu-b-07' }, runningShards: [] }),
      backoff: { initialMs: 20, maxMs: 100, multiplier: 2, jitter: 0 },
      refusedBackoff: { initialMs: 150, maxMs: 1_000, multiplier: 2, jitter: 0 },
      onCommand: () => {},
      onState: (s, info) => states.push({ s, err: info.error, retryMs: info.nextRetryMs }),
      log: createLogger({ service: 'node-agent', destination: dest }),
    });
    clients.push(c);
    c.start();
    await waitFor('two refusals', () => states.filter((x) => x.s === 'refused').length >= 2);
    await c.close();
    const refusals = states.filter((x) => x.s === 'refused');
    expect(refusals[0].err?.code).toBe('LLMGW_ERR_PERMISSION_DENIED');
    expect(refusals[0].err?.message).toMatch(/gpu-b-07/);
    // The slow schedule, not the outage one.
    expect(refusals.slice(0, 2).map((x) => x.retryMs)).toEqual([150, 300]);
    expect(states.some((x) => x.s === 'disconnected' || x.s === 'registered')).toBe(false);
    expect(sessions.slice(before).some((x) => x.nodeId === 'gpu-b-07')).toBe(false);
    const said = lines.filter((l) => /refused/.test(l.msg));
    expect(said.length).toBeGreaterThanOrEqual(2);
    expect(said.every((l) => l.level === 'error' && l.code === 'LLMGW_ERR_PERMISSION_DENIED')).toBe(true);
    expect(lines.some((l) => /stream down|unreachable/.test(l.msg))).toBe(false);
  }, 30_000);

  it('isRefusal tells a refusal from an outage', () => {
    expect(isRefusal(new LlmgwError('LLMGW_ERR_PERMISSION_DENIED', 'x'))).toBe(true);
    expect(isRefusal(new LlmgwError('LLMGW_ERR_AUTH_INVALID', 'x'))).toBe(true);
    expect(isRefusal(new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'x'))).toBe(false);
    expect(isRefusal(new LlmgwError('LLMGW_ERR_DEADLINE_EXCEEDED', 'x'))).toBe(false);
    expect(isRefusal(undefined)).toBe(false);
  });

  async function raw(first: agentV1.AgentMessage): Promise<LlmgwError> {
    const client = makeClient(agentServiceClient(), addr, { tls: { ca, ...nodeA } });
    const call = client.Connect();
    try {
      return await new Promise((resolve) => {
        call.on('data', () => {});
        call.on('error', (e) => resolve(fromGrpcError(e)));
        call.write(first);
      });
    } finally {
      client.close();
    }
  }

  it.each([
    ['a heartbeat before register', 'LLMGW_ERR_FAILED_PRECONDITION', { heartbeat: { seq: 1 } }],
    ['a malformed node id', 'LLMGW_ERR_INVALID_ARGUMENT', { register: { node: { nodeId: 'GPU A' }, sessionId: 's' } }],
    ['a register without session id', 'LLMGW_ERR_INVALID_ARGUMENT', { register: { node: { nodeId: 'gpu-a-01' } } }],
    [
      'duplicate running shard ids',
      'LLMGW_ERR_INVALID_ARGUMENT',
      { register: { node: { nodeId: 'gpu-a-01' }, sessionId: 's', runningShards: [{ shardId: 'a' }, { shardId: 'a' }] } },
    ],
  ])('refuses %s with %s', async (_what, code, first) => {
    expect((await raw(first as agentV1.AgentMessage)).code).toBe(code);
  });
});

import type * as grpc from '@grpc/grpc-js';
import { isTerminalShardState, loadProto, type agentV1 } from '@llmgw/contracts';
import { makeClient, type ClientTlsOptions } from '@llmgw/grpc';
import { randomUUID } from 'node:crypto';

type AgentClient = grpc.Client & { Connect(): grpc.ClientDuplexStream<agentV1.AgentMessage, agentV1.ControlMessage__Output> };

export interface SimAgentOptions {
  /** Inventory's fleet-facing address, host:port; several comma-separated are tried in turn on each reconnect. */
  address: string;
  nodeId: string;
  /** mTLS material (cert CN should be nodeId); plaintext when absent. */
  tls?: ClientTlsOptions;
  /** Share one channel between many simulated agents (plaintext benchmarks); its own otherwise. */
  client?: grpc.Client;
  gpus?: number;
  gpuClass?: string;
  /** The node's fabric; none when absent. */
  fabric?: string;
  heartbeatIntervalMs?: number;
  /** EngineStats period per READY leader shard; 0 = none (default). */
  statsIntervalMs?: number;
  /** Shards already running, reported in Register. */
  runningShards?: agentV1.ShardStatus[];
  /** Reconnect (with backoff) when the stream ends; default true. */
  reconnect?: boolean;
  /** Decides the Ack of a command; default: accept, then report READY (start) / STOPPED (stop) / DRAINING (drain). */
  onCommand?: (m: agentV1.ControlMessage__Output, agent: SimAgent) => agentV1.Ack | 'ignore' | undefined;
  /** Lines served for log requests, per shard id ('' = the agent log). */
  logs?: Record<string, string[]>;
}

/** The node a simulated agent describes. */
export function simNodeInfo(nodeId: string, gpus = 8, gpuClass = 'h100-80g', fabric?: string): agentV1.NodeInfo {
  return {
    nodeId,
    hostname: nodeId,
    mgmtAddr: '127.0.0.1',
    simulated: true,
    cpuCores: 64,
    memoryTotalMib: 1_024_000,
    gpus: Array.from({ length: gpus }, (_, i) => ({
      index: i,
      uuid: `GPU-${nodeId}-${i}`,
      name: 'NVIDIA H100 80GB HBM3',
      memoryTotalMib: 81559,
      gpuClass,
      computeCapability: '9.0',
      numaNode: i < gpus / 2 ? 0 : 1,
      nvlinkPeers: Array.from({ length: gpus }, (_x, j) => j).filter((j) => j !== i),
    })),
    fabrics: fabric ? [{ fabric, hcas: ['mlx5_0', 'mlx5_1'], rateGbps: 400, source: 'FABRIC_SOURCE_LABEL' }] : [],
    hcas: fabric
      ? [
          {
            name: 'mlx5_0',
            numaNode: 0,
            ports: [{ port: 1, state: 'PORT_STATE_ACTIVE', rateGbps: 400, linkLayer: 'LINK_LAYER_INFINIBAND', gidPrefix: 'fe80:0000:0000:0001' }],
          },
        ]
      : [],
    topology: { nvlinkGroups: [{ gpuIndices: Array.from({ length: gpus }, (_, i) => i) }], numaNodes: 2, source: 'simulated' },
    versions: { agent: 'sim-agent', driver: '550.54.15', cuda: '12.4', engines: [{ engine: 'sim', version: '0', binary: 'sim' }] },
    labels: { simulated: 'true' },
  };
}

/**
 * A lightweight node agent for tests and benchmarks: a real gRPC client
 * speaking the real agent protocol (Register with running shards,
 * heartbeats, shard status, engine stats, Acks, log replies), without
 * GPUs or engine processes. `pause()` stops its heartbeats while the stream
 * stays open (what SIGSTOP does to a real agent).
 */
export class SimAgent {
  readonly sessionId = randomUUID();
  readonly shards = new Map<string, agentV1.ShardStatus>();
  /** Every control message received, in order. */
  readonly received: agentV1.ControlMessage__Output[] = [];
  registered = false;
  /** Registrations acknowledged (1 after start, more after reconnects). */
  registrations = 0;
  lastError?: Error;
  private call?: grpc.ClientDuplexStream<agentV1.AgentMessage, agentV1.ControlMessage__Output>;
  private readonly clients: AgentClient[];
  private readonly ownsClient: boolean;
  private current = 0;
  private hbTimer?: NodeJS.Timeout;
  private statsTimer?: NodeJS.Timeout;
  private retryTimer?: NodeJS.Timeout;
  private seq = 0;
  private paused = false;
  private closed = false;
  private failures = 0;
  private waiters: Array<{ ok(): void; fail(e: Error): void }> = [];

  constructor(readonly o: SimAgentOptions) {
    for (const s of o.runningShards ?? []) this.shards.set(s.shardId!, s);
    if (o.client) {
      this.clients = [o.client as AgentClient];
      this.ownsClient = false;
    } else {
      const Ctor = loadProto('llmgw/agent/v1/agent.proto').llmgw.agent.v1.AgentService as unknown as new (
        a: string,
        c: grpc.ChannelCredentials,
        o?: grpc.ChannelOptions,
      ) => AgentClient;
      // One connection per agent, as in a real fleet: without a local subchannel
      // pool grpc-js would multiplex every SimAgent of this process onto one
      // HTTP/2 connection, and the fleet port allows 100 streams per connection.
      this.clients = o.address.split(',').map((a) =>
        makeClient(Ctor, a.trim(), {
          tls: o.tls,
          channelOptions: { 'grpc.initial_reconnect_backoff_ms': 100, 'grpc.max_reconnect_backoff_ms': 1000, 'grpc.use_local_subchannel_pool': 1 },
        }),
      );
      this.ownsClient = true;
    }
  }

  /** A channel many SimAgents may share (plaintext only). */
  static sharedClient(address: string): grpc.Client {
    const Ctor = loadProto('llmgw/agent/v1/agent.proto').llmgw.agent.v1.AgentService as unknown as new (
      a: string,
      c: grpc.ChannelCredentials,
      o?: grpc.ChannelOptions,
    ) => AgentClient;
    return makeClient(Ctor, address, { channelOptions: { 'grpc.max_concurrent_streams': 100_000 } as grpc.ChannelOptions });
  }

  /** Connects and resolves once the Register is acknowledged (rejects if the stream fails first). */
  start(timeoutMs = 20_000): Promise<void> {
    this.connect();
    return this.untilRegistered(timeoutMs);
  }

  /** Resolves at the next acknowledged registration (or at once when registered). */
  untilRegistered(timeoutMs = 20_000): Promise<void> {
    if (this.registered) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(this.lastError ?? new Error(`sim agent ${this.o.nodeId}: not registered within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ ok: () => (clearTimeout(t), resolve()), fail: (e) => (clearTimeout(t), reject(e)) });
    });
  }

  private connect(): void {
    if (this.closed) return;
    const call = this.clients[this.current % this.clients.length].Connect();
    this.call = call;
    this.seq = 0;
    call.on('data', (m: agentV1.ControlMessage__Output) => this.onControl(m));
    const ended = (e?: Error) => {
      if (this.call !== call) return;
      this.call = undefined;
      this.registered = false;
      this.stopTimers();
      if (e) this.lastError = e;
      if (this.closed || this.o.reconnect === false) {
        const err = this.lastError ?? new Error(`sim agent ${this.o.nodeId}: the stream ended before registration`);
        for (const w of this.waiters.splice(0)) w.fail(err);
        return;
      }
      this.current++;
      const backoff = Math.min(2000, 100 * 2 ** Math.min(this.failures++, 5));
      this.retryTimer = setTimeout(() => this.connect(), backoff * (0.5 + Math.random() / 2));
    };
    call.on('error', (e) => ended(e));
    call.on('end', () => ended());
    call.write({
      register: {
        node: simNodeInfo(this.o.nodeId, this.o.gpus ?? 8, this.o.gpuClass ?? 'h100-80g', this.o.fabric),
        runningShards: [...this.shards.values()].map((s) => ({ ...s })),
        sessionId: this.sessionId,
        agentStartedAtMs: Date.now(),
        sentAtMs: Date.now(),
        heartbeatIntervalMs: this.o.heartbeatIntervalMs ?? 5000,
      },
    });
  }

  private onControl(m: agentV1.ControlMessage__Output): void {
    this.received.push(m);
    if (m.msg === 'ack' && !this.registered) {
      if (m.ack!.refId !== this.sessionId) return;
      this.registered = true;
      this.registrations++;
      this.failures = 0;
      this.startTimers();
      for (const w of this.waiters.splice(0)) w.ok();
      return;
    }
    if (m.msg === 'logs') return this.answerLogs(m.logs!);
    if (m.msg !== 'start' && m.msg !== 'stop' && m.msg !== 'drain') return;
    const decided = this.o.onCommand?.(m, this);
    if (decided === 'ignore') return;
    const cmd = m[m.msg]!;
    const shardId = m.msg === 'start' ? m.start!.spec!.shardId : (cmd as { shardId: string }).shardId;
    const known = this.shards.get(shardId);
    let ack: agentV1.Ack = decided ?? { refId: cmd.commandId, shardId, result: 'ACK_RESULT_ACCEPTED' };
    if (!decided) {
      if (m.msg === 'start') {
        if (known && !isTerminalShardState(known.state)) ack = { ...ack, result: 'ACK_RESULT_ALREADY_DONE' };
      } else if (!known || known.state === 'SHARD_STATE_STOPPED' || (m.msg === 'drain' && known.state === 'SHARD_STATE_DRAINING'))
        ack = { ...ack, result: 'ACK_RESULT_ALREADY_DONE' };
    }
    this.send({ ack });
    if (ack.result !== 'ACK_RESULT_ACCEPTED') return;
    const spec = m.msg === 'start' ? m.start!.spec! : known?.spec;
    const next: agentV1.ShardState = m.msg === 'start' ? 'SHARD_STATE_READY' : m.msg === 'stop' ? 'SHARD_STATE_STOPPED' : 'SHARD_STATE_DRAINING';
    this.setShard({
      shardId,
      replicaId: spec?.replicaId ?? known?.replicaId ?? '',
      state: next,
      stateSinceMs: Date.now(),
      spec: spec ?? undefined,
      endpoint: m.msg === 'start' && spec?.rank === 0 ? `http://127.0.0.1:${spec.httpPort || 8000}` : (known?.endpoint ?? ''),
    });
  }

  /** Changes a shard and reports it (ShardStatus). */
  setShard(s: agentV1.ShardStatus): void {
    this.shards.set(s.shardId!, s);
    this.send({ shard: s });
  }

  private answerLogs(r: agentV1.LogsRequest__Output): void {
    const lines = this.o.logs?.[r.source === 'LOG_SOURCE_SHARD' ? r.shardId : ''];
    if (!lines) {
      this.send({ logs: { requestId: r.requestId, seq: 0, eof: true, errorCode: 'LLMGW_ERR_NOT_FOUND', errorMessage: `no log for ${r.shardId || 'agent'}` } });
      return;
    }
    const tail = lines.slice(-(r.tailLines || 100));
    const half = Math.ceil(tail.length / 2);
    const mk = (xs: string[]) => xs.map((text) => ({ atMs: Date.now(), stream: 'LOG_STREAM_STDOUT' as const, text }));
    this.send({ logs: { requestId: r.requestId, seq: 0, lines: mk(tail.slice(0, half)), eof: false } });
    this.send({ logs: { requestId: r.requestId, seq: 1, lines: mk(tail.slice(half)), eof: true } });
  }

  send(m: agentV1.AgentMessage): void {
    this.call?.write(m);
  }

  private startTimers(): void {
    this.stopTimers();
    const hb = this.o.heartbeatIntervalMs ?? 5000;
    this.hbTimer = setInterval(() => this.heartbeat(), hb);
    if (this.o.statsIntervalMs) this.statsTimer = setInterval(() => this.sendStats(), this.o.statsIntervalMs);
  }

  private stopTimers(): void {
    if (this.hbTimer) clearInterval(this.hbTimer);
    if (this.statsTimer) clearInterval(this.statsTimer);
    this.hbTimer = this.statsTimer = undefined;
  }

  /** Sends one heartbeat now (unless paused). */
  heartbeat(): void {
    if (this.paused || !this.registered) return;
    const gpus = this.o.gpus ?? 8;
    this.send({
      heartbeat: {
        seq: ++this.seq,
        sentAtMs: Date.now(),
        gpus: Array.from({ length: gpus }, (_, index) => ({
          index,
          health: 'GPU_HEALTH_OK',
          memoryUsedMib: 1024,
          temperatureCelsius: 40,
          utilizationPercent: 10,
        })),
        shards: [...this.shards.values()].map(({ spec: _spec, ...s }) => s),
      },
    });
  }

  private sendStats(): void {
    if (this.paused || !this.registered) return;
    for (const s of this.shards.values()) {
      if (s.state !== 'SHARD_STATE_READY' || (s.spec?.rank ?? 0) !== 0) continue;
      this.send({
        stats: {
          shardId: s.shardId,
          replicaId: s.replicaId,
          endpoint: s.endpoint,
          engine: 'vllm',
          scrapedAtMs: Date.now(),
          waiting: 1,
          running: 3,
          kvUsage: 0.25,
        },
      });
    }
  }

  /** Stops heartbeats and stats; the stream stays open (SIGSTOP). */
  pause(): void {
    this.paused = true;
  }

  /** Heartbeats again, one at once (SIGCONT). */
  resume(): void {
    this.paused = false;
    this.heartbeat();
  }

  /** Ends the stream for good. */
  close(): void {
    this.closed = true;
    this.stopTimers();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const c = this.call;
    this.call = undefined;
    c?.end();
    c?.cancel();
    if (this.ownsClient) for (const c of this.clients) c.close();
  }
}

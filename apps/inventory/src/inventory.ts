import type * as grpc from '@grpc/grpc-js';
import type { agentV1, inventoryV1 } from '@llmgw/contracts';
import { agentConnectHandler, type AgentSession } from '@llmgw/agent-rpc';
import { LlmgwError, isLlmgwError } from '@llmgw/errors';
import { mergeShardStatus, mergeShardStatuses, type FleetNode, type InventoryBackend, type WatchSink } from '@llmgw/inventory-rpc';
import type { Logger } from '@llmgw/observability';
import { randomUUID } from 'node:crypto';
import type { FenceStore } from './fence';
import type { EventBody, FleetStore, Mutation } from './fleet-store';
import type { IntentStore, NodeIntentRecord } from './intent-store';
import { NO_METRICS, type InventoryMetrics } from './metrics';

type Ack = agentV1.Ack__Output;
type CommandKind = 'start' | 'stop' | 'drain';
type LogsReply = agentV1.LogsReply;

/**
 * Other inventory instances, reached through Redis (cluster.ts). Absent for
 * a single instance.
 */
export interface Peers {
  /** Whether the instance still announces itself. */
  isAlive(instanceId: string): boolean;
  /** Relays a command to the instance holding the node's stream. */
  sendCommand(owner: string, req: inventoryV1.ShardCommandRequest__Output, deadlineMs: number): Promise<inventoryV1.ShardCommandResponse>;
  /** Relays a log request to the instance holding the node's stream. */
  fetchLogs(owner: string, req: inventoryV1.FetchLogsRequest__Output, write: (c: LogsReply) => Promise<void>, signal: AbortSignal, timeoutMs: number): Promise<void>;
  /** Last-seen times other instances published. */
  seen(nodeId: string): number | undefined;
  /** Queues this instance's last-seen time of a node for publication. */
  noteSeen(nodeId: string, ms: number): void;
  /** Fans engine stats out to the other instances' watchers. */
  publishStats(nodeId: string, stats: agentV1.EngineStats__Output): void;
}

export interface InventoryOptions {
  instanceId: string;
  store: FleetStore;
  intents: IntentStore;
  fence: FenceStore;
  log: Logger;
  metrics?: InventoryMetrics;
  peers?: Peers;
  clock?: () => number;
  /** Require a client certificate whose CN equals the node id (mTLS on the fleet port). */
  requirePeerCert: boolean;
  /** Heartbeats missed before Unreachable (3). */
  missedHeartbeats: number;
  /** Unseen this long → Lost (60 s). */
  lostAfterMs: number;
  /** Lost this long → forgotten (NodeRemoved). */
  forgetAfterMs: number;
  /** The longest a command waits for its Ack (also capped by the caller's deadline). */
  commandTimeoutMs: number;
  /** How long a finished command's Ack is kept for idempotent repeats. */
  commandRecordTtlMs: number;
  /** The most shards a Register or Heartbeat may list; more ends the stream with INVALID_ARGUMENT (default 1024). */
  maxShardsPerNode?: number;
}

const LOG_CHUNK_LINES = 500;

/** A timeout or disconnect of a relayed command, said as what it means for the caller. */
function reportedFailed(e: unknown, kind: string, id: string): unknown {
  if (!isLlmgwError(e)) return e;
  if (e.code === 'LLMGW_ERR_DEADLINE_EXCEEDED') return new LlmgwError(e.code, `${e.message}; ${kind} ${id} is reported failed`);
  return e;
}

const sameHealth = (a: readonly agentV1.GpuHealthReport__Output[], b: readonly agentV1.GpuHealthReport__Output[]) =>
  a.length === b.length && a.every((x, i) => x.index === b[i].index && x.health === b[i].health && x.reasons.join('\n') === b[i].reasons.join('\n'));

/**
 * The inventory (docs/inventory.md): node, GPU and shard state rebuilt from
 * what agents report, liveness (Unreachable after missed heartbeats, Lost
 * later, forgotten at last), operator intent, the watch, and the command and
 * log relays: InventoryService, which the placement-scheduler calls (its
 * ControlService relays operators' node admin here).
 */
export class Inventory implements InventoryBackend {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly chains = new WeakMap<AgentSession, Promise<void>>();
  private readonly sinks = new Set<WatchSink>();
  private readonly seenAt = new Map<string, number>();
  private readonly stats = new Map<string, Map<string, agentV1.EngineStats__Output>>();
  private readonly statsListeners = new Set<(nodeId: string, s: agentV1.EngineStats__Output) => void>();
  private readonly inflight = new Map<string, Promise<Ack>>();
  private readonly finished = new Map<string, { ack: Ack; at: number }>();
  private readonly clock: () => number;
  private readonly metrics: InventoryMetrics;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping = false;
  private watchers = 0;

  constructor(private readonly o: InventoryOptions) {
    this.clock = o.clock ?? Date.now;
    this.metrics = o.metrics ?? NO_METRICS;
  }

  get instanceId(): string {
    return this.o.instanceId;
  }

  watcherCount(): number {
    return this.watchers;
  }

  /** Agents holding a stream to this instance. */
  localAgents(): number {
    return this.sessions.size;
  }

  /** Nodes as served: records with the freshest last-seen time known. */
  nodes(): FleetNode[] {
    return this.o.store.mirror.all().map((n) => this.withSeen(n));
  }

  node(nodeId: string): FleetNode | undefined {
    const n = this.o.store.mirror.get(nodeId);
    return n && this.withSeen(n);
  }

  private lastSeen(n: FleetNode): number {
    const id = n.info!.nodeId;
    return Math.max(n.lastSeenMs, this.seenAt.get(id) ?? 0, this.o.peers?.seen(id) ?? 0);
  }

  private withSeen(n: FleetNode): FleetNode {
    const t = this.lastSeen(n);
    return t === n.lastSeenMs ? n : { ...n, lastSeenMs: t };
  }

  // ---- the agent stream -------------------------------------------------

  /**
   * The AgentService.Connect handler (libs/agent-rpc does the protocol:
   * Register first and well formed, CN = node id, Acks and log replies
   * matched to their requests). Messages of one stream are applied in
   * order, each after the previous one's commit.
   */
  connectHandler(): grpc.handleBidiStreamingCall<agentV1.AgentMessage__Output, agentV1.ControlMessage> {
    return agentConnectHandler({
      requireCert: this.o.requirePeerCert,
      commandTimeoutMs: this.o.commandTimeoutMs,
      maxShardsPerNode: this.o.maxShardsPerNode,
      log: this.o.log,
      now: this.clock,
      onRegister: (s) => this.register(s),
      onHeartbeat: (s, hb) => this.serially(s, () => this.heartbeat(s, hb)),
      onShardStatus: (s, st) => this.serially(s, () => this.shardStatus(s, st)),
      onStats: (s, st) => {
        this.touch(s.nodeId, this.clock());
        this.acceptStats(s.nodeId, st, true);
      },
      onClose: (s, err) => this.streamClosed(s, err?.message ?? 'closed'),
      onRefused: (err, claimed, cn) => {
        this.metrics.registerRefused(err.code === 'LLMGW_ERR_PERMISSION_DENIED' ? 'cn_mismatch' : err.code === 'LLMGW_ERR_AUTH_INVALID' ? 'no_certificate' : 'invalid');
        if (err.code === 'LLMGW_ERR_PERMISSION_DENIED') this.o.log.warn({ claimed, cn }, 'agent stream refused: the node id it claims differs from its certificate CN');
      },
    });
  }

  private serially(s: AgentSession, step: () => Promise<void>): void {
    const next = (this.chains.get(s) ?? Promise.resolve()).then(step).catch((e) => {
      this.o.log.warn({ err: (e as Error).message, node: s.nodeId }, 'applying an agent message failed; closing the stream so the agent re-registers');
      s.close(new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'inventory could not record the node state; reconnect'));
    });
    this.chains.set(s, next);
  }

  private touch(nodeId: string, now: number): void {
    this.seenAt.set(nodeId, now);
    this.o.peers?.noteSeen(nodeId, now);
  }

  private async register(s: AgentSession): Promise<void> {
    const r = s.register;
    const nodeId = s.nodeId;
    const now = this.clock();
    const intent = await this.o.intents.get(nodeId);
    const hb = r.heartbeatIntervalMs > 0 ? Math.min(Math.max(r.heartbeatIntervalMs, 50), 600_000) : 5000;
    const node: FleetNode = {
      info: r.node!,
      connectivity: 'CONNECTIVITY_CONNECTED',
      connectivityReason: `registered (session ${s.sessionId})`,
      connectivitySinceMs: now,
      lastSeenMs: now,
      registeredAtMs: now,
      sessionId: s.sessionId,
      peerCn: s.peerCommonName ?? '',
      gpuHealth: r.gpuHealth ?? [],
      shards: mergeShardStatuses([], r.runningShards),
      ...intentFields(intent),
      instanceId: this.o.instanceId,
      heartbeatIntervalMs: hb,
    };
    this.touch(nodeId, now);
    await this.o.store.update(nodeId, () => ({ node, events: [{ nodeChanged: node }] }));
    const old = this.sessions.get(nodeId);
    this.sessions.set(nodeId, s);
    if (old && old !== s) old.close(new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'replaced by a newer stream of the same node'));
    this.metrics.agentConnected(nodeId, true);
    this.o.log.info({ node: nodeId, session: s.sessionId, shards: node.shards.length, gpus: r.node!.gpus.length, clockSkewMs: r.sentAtMs ? now - r.sentAtMs : 0 }, 'agent registered');
  }

  /** Marks a record connected and owned by this session, if it is not already. */
  private ownFields(s: AgentSession, cur: FleetNode, now: number, why: string): Partial<FleetNode> {
    if (cur.connectivity === 'CONNECTIVITY_CONNECTED' && cur.instanceId === this.o.instanceId && cur.sessionId === s.sessionId) return {};
    return { connectivity: 'CONNECTIVITY_CONNECTED', connectivityReason: why, connectivitySinceMs: now, instanceId: this.o.instanceId, sessionId: s.sessionId };
  }

  private async heartbeat(s: AgentSession, hb: agentV1.Heartbeat__Output): Promise<void> {
    const now = this.clock();
    this.touch(s.nodeId, now);
    const cur = this.o.store.mirror.get(s.nodeId);
    if (!cur) return;
    const own = this.ownFields(s, cur, now, 'heartbeats resumed');
    const healthChanged = !sameHealth(cur.gpuHealth, hb.gpus);
    // Linear in shards (maps by id): a node may report many (docs/inventory.md, "Limits").
    const reported = new Set(hb.shards.map((h) => h.shardId));
    const stateOf = (list: readonly agentV1.ShardStatus__Output[]) => new Map(list.map((x) => [x.shardId, x.state]));
    const curStates = stateOf(cur.shards);
    const shardsChanged = hb.shards.some((h) => curStates.get(h.shardId) !== h.state) || cur.shards.some((c) => !reported.has(c.shardId));
    if (!Object.keys(own).length && !healthChanged && !shardsChanged) {
      if (hb.gpus.length) this.refreshHealthQuietly(cur, hb.gpus);
      return;
    }
    await this.o.store.update(s.nodeId, (c) => {
      if (!c || s.closed) return null;
      const events: EventBody[] = [];
      const kept = c.shards.filter((x) => reported.has(x.shardId));
      const removed = kept.length !== c.shards.length;
      const keptStates = stateOf(kept);
      const changed = hb.shards.filter((h) => keptStates.get(h.shardId) !== h.state);
      const shards = mergeShardStatuses(kept, changed);
      const byId = new Map(shards.map((x) => [x.shardId, x]));
      const changes = [...new Set(changed.map((h) => h.shardId))].map((id) => byId.get(id)!);
      const ownNow = this.ownFields(s, c, now, 'heartbeats resumed');
      const node: FleetNode = { ...c, ...ownNow, gpuHealth: hb.gpus, shards, lastSeenMs: now };
      if (removed || Object.keys(ownNow).length || !sameHealth(c.gpuHealth, hb.gpus)) events.push({ nodeChanged: node });
      else for (const st of changes) events.push({ shardChanged: { nodeId: s.nodeId, status: st } });
      return events.length ? { node, events } : null;
    });
  }

  /**
   * Utilisation and memory figures change every heartbeat; they are kept
   * current for ListNodes without an event (the watch carries changes of
   * health, not every sample).
   */
  private refreshHealthQuietly(cur: FleetNode, gpus: agentV1.GpuHealthReport__Output[]): void {
    (cur as { gpuHealth: agentV1.GpuHealthReport__Output[] }).gpuHealth = gpus;
  }

  private async shardStatus(s: AgentSession, st: agentV1.ShardStatus__Output): Promise<void> {
    const now = this.clock();
    this.touch(s.nodeId, now);
    if (!st.shardId) return;
    await this.o.store.update(s.nodeId, (c) => {
      if (!c || s.closed) return null;
      const shards = mergeShardStatus(c.shards, st);
      const merged = shards.find((x) => x.shardId === st.shardId)!;
      const own = this.ownFields(s, c, now, 'shard status received');
      const node: FleetNode = { ...c, ...own, shards, lastSeenMs: now };
      const events: EventBody[] = Object.keys(own).length ? [{ nodeChanged: node }] : [{ shardChanged: { nodeId: s.nodeId, status: merged } }];
      return { node, events };
    });
    if (st.state === 'SHARD_STATE_STOPPED' || st.state === 'SHARD_STATE_FAILED') this.stats.get(s.nodeId)?.delete(st.shardId);
  }

  /** Engine stats from a local agent (fromAgent) or from another instance. */
  acceptStats(nodeId: string, st: agentV1.EngineStats__Output, fromAgent: boolean): void {
    if (!st.shardId) return;
    let m = this.stats.get(nodeId);
    if (!m) this.stats.set(nodeId, (m = new Map()));
    m.set(st.shardId, st);
    for (const l of this.statsListeners) l(nodeId, st);
    if (fromAgent) {
      this.o.peers?.publishStats(nodeId, st);
    }
  }

  private streamClosed(s: AgentSession, reason: string): void {
    if (this.sessions.get(s.nodeId) !== s) return;
    this.sessions.delete(s.nodeId);
    this.chains.delete(s);
    this.metrics.agentConnected(s.nodeId, false);
    this.o.log.info({ node: s.nodeId, session: s.sessionId, reason }, 'agent stream closed');
    const now = this.clock();
    void this.o.store
      .update(s.nodeId, (c) => {
        if (!c || c.sessionId !== s.sessionId || c.instanceId !== this.o.instanceId || c.connectivity !== 'CONNECTIVITY_CONNECTED') return null;
        const node: FleetNode = { ...c, connectivity: 'CONNECTIVITY_UNREACHABLE', connectivityReason: `stream closed: ${reason}`, connectivitySinceMs: now };
        return { node, events: [{ nodeChanged: node }] };
      })
      .catch((e) => this.o.log.warn({ err: (e as Error).message, node: s.nodeId }, 'could not record a closed stream'));
  }

  // ---- liveness ---------------------------------------------------------

  /** Starts the periodic liveness sweep. */
  startSweeper(intervalMs: number): void {
    this.sweepTimer = setInterval(() => void this.sweep(), intervalMs);
    this.sweepTimer.unref();
  }

  /**
   * One pass: Connected nodes unseen for `missedHeartbeats` intervals become
   * Unreachable, nodes unseen for `lostAfterMs` become Lost, Lost nodes
   * unseen for `forgetAfterMs` are forgotten. Each transition is a
   * conditional update, so several instances sweeping make it once.
   */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const now = this.clock();
      for (const n of this.o.store.mirror.all()) {
        const id = n.info!.nodeId;
        const seen = this.lastSeen(n);
        const age = now - seen;
        const hb = n.heartbeatIntervalMs || 5000;
        const limit = this.o.missedHeartbeats * hb;
        let next: Mutation | null = null;
        const decide = (c: FleetNode | undefined): Mutation | null => {
          if (!c) return null;
          if (c.connectivity === 'CONNECTIVITY_CONNECTED' && age > limit) {
            const node: FleetNode = { ...c, connectivity: 'CONNECTIVITY_UNREACHABLE', connectivityReason: `${this.o.missedHeartbeats} heartbeats missed (last seen ${age} ms ago, interval ${hb} ms)`, connectivitySinceMs: now, lastSeenMs: Math.max(c.lastSeenMs, seen) };
            return { node, events: [{ nodeChanged: node }] };
          }
          if (c.connectivity === 'CONNECTIVITY_UNREACHABLE' && age > this.o.lostAfterMs) {
            const node: FleetNode = { ...c, connectivity: 'CONNECTIVITY_LOST', connectivityReason: `unseen for more than ${this.o.lostAfterMs} ms (last seen ${age} ms ago); its shards count as failed`, connectivitySinceMs: now, lastSeenMs: Math.max(c.lastSeenMs, seen) };
            return { node, events: [{ nodeChanged: node }] };
          }
          if (c.connectivity === 'CONNECTIVITY_LOST' && age > this.o.forgetAfterMs) return { node: null, events: [{ nodeRemoved: { nodeId: id } }] };
          return null;
        };
        next = decide(n);
        if (!next) continue;
        const local = this.sessions.get(id);
        if (local && next.node?.connectivity === 'CONNECTIVITY_UNREACHABLE') this.o.log.warn({ node: id, age }, 'agent stream open but heartbeats stopped');
        try {
          const changed = await this.o.store.update(id, decide);
          if (changed) {
            const after = this.o.store.mirror.get(id);
            this.o.log.warn({ node: id, connectivity: after?.connectivity ?? 'forgotten', reason: after?.connectivityReason }, 'node connectivity changed');
            if (!after) {
              this.metrics.agentForgotten(id);
              this.stats.delete(id);
              this.seenAt.delete(id);
            }
          }
        } catch (e) {
          this.o.log.warn({ err: (e as Error).message, node: id }, 'liveness update failed');
        }
      }
    } finally {
      this.sweeping = false;
    }
  }

  // ---- InventoryService -------------------------------------------------

  listNodes(req?: Partial<inventoryV1.ListNodesRequest__Output>): inventoryV1.ListNodesResponse {
    const m = this.o.store.mirror;
    const nodes = req?.nodeId ? [this.node(req.nodeId)].filter((n): n is FleetNode => !!n) : this.nodes();
    const stats = req?.includeStats ? nodes.flatMap((n) => [...(this.stats.get(n.info!.nodeId)?.values() ?? [])].map((st) => ({ nodeId: n.info!.nodeId, stats: st }))) : [];
    return { revision: m.revision, epoch: m.epoch, nodes, stats };
  }

  watch(req: inventoryV1.WatchFleetRequest__Output, sink: WatchSink): () => void {
    const m = this.o.store.mirror;
    const replay = req.resumeEpoch ? m.replayAfter(req.resumeAfterRevision, req.resumeEpoch) : undefined;
    if (replay) for (const ev of replay) sink.push(ev);
    else sink.push(m.snapshot(this.clock()));
    const unsub = m.subscribe((ev) => sink.push(ev));
    let unsubStats = () => undefined as unknown;
    if (req.includeStats) {
      const l = (nodeId: string, stats: agentV1.EngineStats__Output) => sink.push({ revision: m.revision, epoch: m.epoch, atMs: this.clock(), event: 'stats', stats: { nodeId, stats } });
      this.statsListeners.add(l);
      unsubStats = () => this.statsListeners.delete(l);
    }
    this.watchers++;
    this.sinks.add(sink);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.sinks.delete(sink);
      this.watchers--;
      unsub();
      unsubStats();
    };
  }

  async sendShardCommand(req: inventoryV1.ShardCommandRequest__Output, ctx: { deadlineMs: number; signal?: AbortSignal }): Promise<inventoryV1.ShardCommandResponse> {
    const kind = req.command as CommandKind;
    if (!(await this.o.fence.admit(req.fencingToken))) {
      this.metrics.commandFailed(kind, 'stale_fencing_token');
      throw new LlmgwError('LLMGW_ERR_FAILED_PRECONDITION', `fencing token ${req.fencingToken} is older than one already seen: this sender is no longer the leader`);
    }
    const node = this.o.store.mirror.get(req.nodeId);
    if (!node) {
      this.metrics.commandFailed(kind, 'unknown_node');
      throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `node ${req.nodeId} is not in the inventory`);
    }
    if (this.sessions.has(req.nodeId)) return this.relayLocal(req, ctx.deadlineMs);
    const owner = node.instanceId;
    if (this.o.peers && owner && owner !== this.o.instanceId) {
      const started = this.clock();
      try {
        const res = await this.o.peers.sendCommand(owner, req, Math.min(ctx.deadlineMs, this.o.commandTimeoutMs + 1000));
        this.metrics.command(kind, 'routed', (this.clock() - started) / 1000);
        return res;
      } catch (e) {
        this.metrics.commandFailed(kind, 'route');
        throw e;
      }
    }
    this.metrics.commandFailed(kind, 'not_connected');
    throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', `node ${req.nodeId} has no live agent stream (${node.connectivity.replace('CONNECTIVITY_', '').toLowerCase()}: ${node.connectivityReason})`);
  }

  /**
   * Sends a command on this instance's stream to the node and waits for its
   * Ack. Idempotent by command_id: a repeat while in flight joins it, a
   * repeat after an Ack gets that Ack (replayed). No Ack before the timeout
   * → DEADLINE_EXCEEDED (the command is reported failed; a retry sends it
   * again, which the agent treats idempotently by shard_id).
   */
  async relayLocal(req: inventoryV1.ShardCommandRequest__Output, deadlineMs: number): Promise<inventoryV1.ShardCommandResponse> {
    const kind = req.command as CommandKind;
    const cmd = req[kind]! as { commandId: string };
    const id = cmd.commandId;
    this.expireRecords();
    const done = this.finished.get(id);
    if (done) return { ack: done.ack, replayed: true };
    const running = this.inflight.get(id);
    if (running) return { ack: await running, replayed: false };
    const started = this.clock();
    const timeout = Math.max(1, Math.min(deadlineMs, this.o.commandTimeoutMs));
    const p = this.awaitAck(req.nodeId, id, kind, req, timeout);
    this.inflight.set(id, p);
    try {
      const ack = await p;
      this.finished.set(id, { ack, at: this.clock() });
      const result = ack.result.replace('ACK_RESULT_', '').toLowerCase();
      this.metrics.command(kind, result, (this.clock() - started) / 1000);
      if (ack.result === 'ACK_RESULT_REJECTED') this.metrics.commandFailed(kind, 'rejected');
      return { ack, replayed: false };
    } catch (e) {
      const reason = isLlmgwError(e) && e.code === 'LLMGW_ERR_DEADLINE_EXCEEDED' ? 'timeout' : 'disconnected';
      this.metrics.commandFailed(kind, reason);
      this.metrics.command(kind, reason, (this.clock() - started) / 1000);
      this.o.log.warn({ node: req.nodeId, command: kind, commandId: id, reason, err: (e as Error).message }, 'shard command failed');
      throw e;
    } finally {
      this.inflight.delete(id);
    }
  }

  private awaitAck(nodeId: string, id: string, kind: CommandKind, req: inventoryV1.ShardCommandRequest__Output, timeoutMs: number): Promise<Ack> {
    const s = this.sessions.get(nodeId);
    if (!s) return Promise.reject(new LlmgwError('LLMGW_ERR_UNAVAILABLE', `node ${nodeId} has no live agent stream on this instance`));
    const sent =
      kind === 'start'
        ? s.startShard(req.start!.spec!, { commandId: id })
        : kind === 'stop'
          ? s.stopShard(req.stop!.shardId, { commandId: id, graceMs: req.stop!.graceMs, reason: req.stop!.reason })
          : s.drainShard(req.drain!.shardId, { commandId: id, timeoutMs: req.drain!.timeoutMs, reason: req.drain!.reason });
    // The session times out at the command timeout; a caller's shorter deadline wins.
    if (timeoutMs >= this.o.commandTimeoutMs) return sent.catch((e) => Promise.reject(reportedFailed(e, kind, id)));
    let timer: NodeJS.Timeout;
    const deadline = new Promise<never>((_r, reject) => {
      timer = setTimeout(() => reject(new LlmgwError('LLMGW_ERR_DEADLINE_EXCEEDED', `node ${nodeId} did not acknowledge ${kind} ${id} within ${timeoutMs} ms; the command is reported failed`)), timeoutMs);
    });
    return Promise.race([sent.catch((e) => Promise.reject(reportedFailed(e, kind, id))), deadline]).finally(() => clearTimeout(timer));
  }

  private expireRecords(): void {
    const cutoff = this.clock() - this.o.commandRecordTtlMs;
    for (const [id, r] of this.finished) {
      if (r.at >= cutoff) break;
      this.finished.delete(id);
    }
  }

  async fetchLogs(req: inventoryV1.FetchLogsRequest__Output, write: (c: LogsReply) => Promise<void>, signal: AbortSignal): Promise<void> {
    const node = this.o.store.mirror.get(req.nodeId);
    if (!node) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `node ${req.nodeId} is not in the inventory`);
    if (this.sessions.has(req.nodeId)) return this.fetchLogsLocal(req, write, signal);
    const owner = node.instanceId;
    if (this.o.peers && owner && owner !== this.o.instanceId) return this.o.peers.fetchLogs(owner, req, write, signal, this.o.commandTimeoutMs);
    throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', `node ${req.nodeId} has no live agent stream; its logs cannot be read`);
  }

  /**
   * Asks the local agent for logs and relays them in chunks of at most
   * LOG_CHUNK_LINES lines, the last with eof (the agent's ring is read whole
   * before the first chunk goes out).
   */
  async fetchLogsLocal(req: inventoryV1.FetchLogsRequest__Output, write: (c: LogsReply) => Promise<void>, signal: AbortSignal): Promise<void> {
    const s = this.sessions.get(req.nodeId);
    if (!s) throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', `node ${req.nodeId} has no live agent stream on this instance`);
    const requestId = req.request?.requestId || randomUUID();
    const { requestId: _ignored, ...what } = req.request!;
    const res = await s.logs(what);
    let seq = 0;
    for (let i = 0; i === 0 || i < res.lines.length; i += LOG_CHUNK_LINES) {
      if (signal.aborted) return;
      const lines = res.lines.slice(i, i + LOG_CHUNK_LINES);
      await write({ requestId, seq: seq++, lines, eof: i + LOG_CHUNK_LINES >= res.lines.length, truncated: res.truncated });
    }
  }

  // ---- operator intent ----------------------------------------------------

  /**
   * Records operator intent (SetNodeIntent): persisted first (it must
   * survive a restart), then applied to the node and announced as a node
   * change. Repeating the current intent, reason and drain timeout changes
   * nothing (changed = false).
   */
  async setNodeIntent(req: inventoryV1.SetNodeIntentRequest__Output, actor: string): Promise<inventoryV1.SetNodeIntentResponse> {
    const { nodeId, intent } = req;
    if (!this.o.store.mirror.get(nodeId)) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `node ${nodeId} is not in the inventory`);
    const reason = intent === 'NODE_INTENT_UNSPECIFIED' ? '' : req.reason;
    const drainTimeoutMs = intent === 'NODE_INTENT_DRAINING' ? Number(req.drainTimeoutMs) || 0 : 0;
    const rec: NodeIntentRecord | undefined = intent === 'NODE_INTENT_UNSPECIFIED' ? undefined : { intent, reason, sinceMs: this.clock(), actor, ...(drainTimeoutMs ? { drainTimeoutMs } : {}) };
    const prev = await this.o.intents.get(nodeId);
    const same = prev?.intent === rec?.intent && (prev?.reason ?? '') === (rec?.reason ?? '') && (prev?.drainTimeoutMs ?? 0) === drainTimeoutMs;
    if (!same) await this.o.intents.set(nodeId, rec);
    const changed = await this.o.store.update(nodeId, (c) => {
      if (!c || (c.intent === intent && c.intentReason === reason && Number(c.intentDrainTimeoutMs ?? 0) === drainTimeoutMs)) return null;
      const node: FleetNode = { ...c, ...intentFields(rec) };
      return { node, events: [{ nodeChanged: node }] };
    });
    if (changed) this.o.log.info({ node: nodeId, intent, reason, drainTimeoutMs: drainTimeoutMs || undefined, actor }, 'node intent changed');
    const n = this.node(nodeId)!;
    const replicaIds = intent === 'NODE_INTENT_DRAINING' ? [...new Set(n.shards.filter((s) => s.state !== 'SHARD_STATE_STOPPED' && s.state !== 'SHARD_STATE_FAILED').map((s) => s.replicaId || s.spec?.replicaId || ''))].filter(Boolean).sort() : [];
    return { node: n, changed, replicaIds };
  }

  /** Ends every watch (callers resume on another instance, or here after a restart). */
  endWatches(): void {
    for (const s of [...this.sinks]) s.end?.(new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'inventory is shutting down; resume the watch'));
  }

  /** Closes every agent stream (the agents reconnect elsewhere) and stops the sweeper. */
  close(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    for (const s of [...this.sessions.values()]) s.close(new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'inventory is shutting down; reconnect'));
  }
}

function intentFields(rec: NodeIntentRecord | undefined): Pick<FleetNode, 'intent' | 'intentReason' | 'intentSinceMs' | 'intentDrainTimeoutMs' | 'intentActor'> {
  return rec
    ? { intent: rec.intent, intentReason: rec.reason, intentSinceMs: rec.sinceMs, intentDrainTimeoutMs: rec.drainTimeoutMs ?? 0, intentActor: rec.actor }
    : { intent: 'NODE_INTENT_UNSPECIFIED', intentReason: '', intentSinceMs: 0, intentDrainTimeoutMs: 0, intentActor: '' };
}

import type * as grpc from '@grpc/grpc-js';
import { type agentV1, isTerminalShardState } from '@llmgw/contracts';
import { agentConnectHandler, type AgentSession } from '@llmgw/agent-rpc';
import { LlmgwError } from '@llmgw/errors';
import { mergeShardStatus, mergeShardStatuses, type FleetNode } from '@llmgw/inventory-rpc';
import type { EventBody } from './fleet-store';
import { intentFields, type InventoryCore } from './inventory-core';

const sameHealth = (a: readonly agentV1.GpuHealthReport__Output[], b: readonly agentV1.GpuHealthReport__Output[]) =>
  a.length === b.length && a.every((x, i) => x.index === b[i].index && x.health === b[i].health && x.reasons.join('\n') === b[i].reasons.join('\n'));

/**
 * The agent streams this instance holds: registration, heartbeats, shard
 * status and engine stats applied to the fleet store, in order per stream.
 */
export class AgentSessions {
  private readonly chains = new WeakMap<AgentSession, Promise<void>>();

  constructor(private readonly core: InventoryCore) {}

  /**
   * The AgentService.Connect handler (libs/agent-rpc does the protocol:
   * Register first and well formed, CN = node id, Acks and log replies
   * matched to their requests). Messages of one stream are applied in
   * order, each after the previous one's commit.
   */
  connectHandler(): grpc.handleBidiStreamingCall<agentV1.AgentMessage__Output, agentV1.ControlMessage> {
    return agentConnectHandler({
      requireCert: this.core.o.requirePeerCert,
      commandTimeoutMs: this.core.o.commandTimeoutMs,
      maxShardsPerNode: this.core.o.maxShardsPerNode,
      log: this.core.o.log,
      now: this.core.clock,
      onRegister: (s) => this.register(s),
      onHeartbeat: (s, hb) => this.serially(s, () => this.heartbeat(s, hb)),
      onShardStatus: (s, st) => this.serially(s, () => this.shardStatus(s, st)),
      onStats: (s, st) => {
        this.touch(s.nodeId, this.core.clock());
        this.acceptStats(s.nodeId, st, true);
      },
      onClose: (s, err) => this.streamClosed(s, err?.message ?? 'closed'),
      onRefused: (err, claimed, cn) => {
        this.core.metrics.registerRefused(
          err.code === 'LLMGW_ERR_PERMISSION_DENIED' ? 'cn_mismatch' : err.code === 'LLMGW_ERR_AUTH_INVALID' ? 'no_certificate' : 'invalid',
        );
        if (err.code === 'LLMGW_ERR_PERMISSION_DENIED')
          this.core.o.log.warn({ claimed, cn }, 'agent stream refused: the node id it claims differs from its certificate CN');
      },
    });
  }

  private serially(s: AgentSession, step: () => Promise<void>): void {
    const next = (this.chains.get(s) ?? Promise.resolve()).then(step).catch((e) => {
      this.core.o.log.warn({ err: (e as Error).message, node: s.nodeId }, 'applying an agent message failed; closing the stream so the agent re-registers');
      s.close(new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'inventory could not record the node state; reconnect'));
    });
    this.chains.set(s, next);
  }

  touch(nodeId: string, now: number): void {
    this.core.seenAt.set(nodeId, now);
    this.core.o.peers?.noteSeen(nodeId, now);
  }

  private async register(s: AgentSession): Promise<void> {
    const r = s.register;
    const nodeId = s.nodeId;
    const now = this.core.clock();
    const intent = await this.core.o.intents.get(nodeId);
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
      instanceId: this.core.o.instanceId,
      heartbeatIntervalMs: hb,
      hostSensors: null,
    };
    this.touch(nodeId, now);
    await this.core.o.store.update(nodeId, () => ({ node, events: [{ nodeChanged: node }] }));
    const old = this.core.sessions.get(nodeId);
    this.core.sessions.set(nodeId, s);
    if (old && old !== s) old.close(new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'replaced by a newer stream of the same node'));
    this.core.metrics.agentConnected(nodeId, true);
    this.core.o.log.info(
      { node: nodeId, session: s.sessionId, shards: node.shards.length, gpus: r.node!.gpus.length, clockSkewMs: r.sentAtMs ? now - r.sentAtMs : 0 },
      'agent registered',
    );
  }

  /** Marks a record connected and owned by this session, if it is not already. */
  private ownFields(s: AgentSession, cur: FleetNode, now: number, why: string): Partial<FleetNode> {
    if (cur.connectivity === 'CONNECTIVITY_CONNECTED' && cur.instanceId === this.core.o.instanceId && cur.sessionId === s.sessionId) return {};
    return {
      connectivity: 'CONNECTIVITY_CONNECTED',
      connectivityReason: why,
      connectivitySinceMs: now,
      instanceId: this.core.o.instanceId,
      sessionId: s.sessionId,
    };
  }

  private async heartbeat(s: AgentSession, hb: agentV1.Heartbeat__Output): Promise<void> {
    const now = this.core.clock();
    this.touch(s.nodeId, now);
    const cur = this.core.o.store.mirror.get(s.nodeId);
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
      if (hb.host) (cur as { hostSensors: agentV1.HostSensors__Output | null }).hostSensors = hb.host;
      return;
    }
    await this.core.o.store.update(s.nodeId, (c) => {
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
      const node: FleetNode = { ...c, ...ownNow, gpuHealth: hb.gpus, shards, lastSeenMs: now, hostSensors: hb.host ?? c.hostSensors };
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
    const now = this.core.clock();
    this.touch(s.nodeId, now);
    if (!st.shardId) return;
    await this.core.o.store.update(s.nodeId, (c) => {
      if (!c || s.closed) return null;
      const shards = mergeShardStatus(c.shards, st);
      const merged = shards.find((x) => x.shardId === st.shardId)!;
      const own = this.ownFields(s, c, now, 'shard status received');
      const node: FleetNode = { ...c, ...own, shards, lastSeenMs: now };
      const events: EventBody[] = Object.keys(own).length ? [{ nodeChanged: node }] : [{ shardChanged: { nodeId: s.nodeId, status: merged } }];
      return { node, events };
    });
    if (isTerminalShardState(st.state)) this.core.stats.get(s.nodeId)?.delete(st.shardId);
  }

  /** Engine stats from a local agent (fromAgent) or from another instance. */
  acceptStats(nodeId: string, st: agentV1.EngineStats__Output, fromAgent: boolean): void {
    if (!st.shardId) return;
    let m = this.core.stats.get(nodeId);
    if (!m) this.core.stats.set(nodeId, (m = new Map()));
    m.set(st.shardId, st);
    for (const l of this.core.statsListeners) l(nodeId, st);
    if (fromAgent) {
      this.core.o.peers?.publishStats(nodeId, st);
    }
  }

  private streamClosed(s: AgentSession, reason: string): void {
    if (this.core.sessions.get(s.nodeId) !== s) return;
    this.core.sessions.delete(s.nodeId);
    this.chains.delete(s);
    this.core.metrics.agentConnected(s.nodeId, false);
    this.core.o.log.info({ node: s.nodeId, session: s.sessionId, reason }, 'agent stream closed');
    const now = this.core.clock();
    void this.core.o.store
      .update(s.nodeId, (c) => {
        if (!c || c.sessionId !== s.sessionId || c.instanceId !== this.core.o.instanceId || c.connectivity !== 'CONNECTIVITY_CONNECTED') return null;
        const node: FleetNode = { ...c, connectivity: 'CONNECTIVITY_UNREACHABLE', connectivityReason: `stream closed: ${reason}`, connectivitySinceMs: now };
        return { node, events: [{ nodeChanged: node }] };
      })
      .catch((e) => this.core.o.log.warn({ err: (e as Error).message, node: s.nodeId }, 'could not record a closed stream'));
  }
}

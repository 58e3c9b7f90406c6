import type * as grpc from '@grpc/grpc-js';
import type { agentV1, inventoryV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import type { FleetNode, InventoryBackend, WatchSink } from '@llmgw/inventory-rpc';
import { AgentSessions } from './agent-sessions';
import { CommandRelay } from './command-relay';
import { FleetWatch } from './fleet-watch';
import { InventoryCore, type InventoryOptions, type LogsReply } from './inventory-core';
import { LivenessSweep } from './liveness-sweep';
import { LogRelay } from './log-relay';
import { NodeAdmin } from './node-admin';

export type { InventoryOptions, Peers } from './inventory-core';

/**
 * The inventory (docs/inventory.md): node, GPU and shard state rebuilt from
 * what agents report, liveness (Unreachable after missed heartbeats, Lost
 * later, forgotten at last), operator intent, the watch, and the command and
 * log relays: InventoryService, which the placement-scheduler calls (its
 * ControlService relays operators' node admin here). Each concern is its own
 * part over one shared core.
 */
export class Inventory implements InventoryBackend {
  private readonly core: InventoryCore;
  private readonly agents: AgentSessions;
  private readonly liveness: LivenessSweep;
  private readonly fleet: FleetWatch;
  private readonly commands: CommandRelay;
  private readonly logs: LogRelay;
  private readonly admin: NodeAdmin;

  constructor(o: InventoryOptions) {
    this.core = new InventoryCore(o);
    this.agents = new AgentSessions(this.core);
    this.liveness = new LivenessSweep(this.core);
    this.fleet = new FleetWatch(this.core);
    this.commands = new CommandRelay(this.core);
    this.logs = new LogRelay(this.core);
    this.admin = new NodeAdmin(this.core);
  }

  get instanceId(): string {
    return this.core.o.instanceId;
  }

  watcherCount(): number {
    return this.fleet.watcherCount();
  }

  /** Agents holding a stream to this instance. */
  localAgents(): number {
    return this.core.sessions.size;
  }

  /** Nodes as served: records with the freshest last-seen time known. */
  nodes(): FleetNode[] {
    return this.core.nodes();
  }

  node(nodeId: string): FleetNode | undefined {
    return this.core.node(nodeId);
  }

  // ---- the agent stream (agent-sessions.ts) ----

  connectHandler(): grpc.handleBidiStreamingCall<agentV1.AgentMessage__Output, agentV1.ControlMessage> {
    return this.agents.connectHandler();
  }

  /** Engine stats from a local agent (fromAgent) or from another instance. */
  acceptStats(nodeId: string, st: agentV1.EngineStats__Output, fromAgent: boolean): void {
    this.agents.acceptStats(nodeId, st, fromAgent);
  }

  // ---- liveness (liveness-sweep.ts) ----

  /** Starts the periodic liveness sweep. */
  startSweeper(intervalMs: number): void {
    this.liveness.startSweeper(intervalMs);
  }

  sweep(): Promise<void> {
    return this.liveness.sweep();
  }

  // ---- InventoryService ----

  listNodes(req?: Partial<inventoryV1.ListNodesRequest__Output>): inventoryV1.ListNodesResponse {
    return this.fleet.listNodes(req);
  }

  watch(req: inventoryV1.WatchFleetRequest__Output, sink: WatchSink): () => void {
    return this.fleet.watch(req, sink);
  }

  sendShardCommand(req: inventoryV1.ShardCommandRequest__Output, ctx: { deadlineMs: number; signal?: AbortSignal }): Promise<inventoryV1.ShardCommandResponse> {
    return this.commands.sendShardCommand(req, ctx);
  }

  relayLocal(req: inventoryV1.ShardCommandRequest__Output, deadlineMs: number): Promise<inventoryV1.ShardCommandResponse> {
    return this.commands.relayLocal(req, deadlineMs);
  }

  fetchLogs(req: inventoryV1.FetchLogsRequest__Output, write: (c: LogsReply) => Promise<void>, signal: AbortSignal): Promise<void> {
    return this.logs.fetchLogs(req, write, signal);
  }

  fetchLogsLocal(req: inventoryV1.FetchLogsRequest__Output, write: (c: LogsReply) => Promise<void>, signal: AbortSignal): Promise<void> {
    return this.logs.fetchLogsLocal(req, write, signal);
  }

  setNodeIntent(req: inventoryV1.SetNodeIntentRequest__Output, actor: string): Promise<inventoryV1.SetNodeIntentResponse> {
    return this.admin.setNodeIntent(req, actor);
  }

  /** Ends every watch (callers resume on another instance, or here after a restart). */
  endWatches(): void {
    this.fleet.endWatches();
  }

  /** Closes every agent stream (the agents reconnect elsewhere) and stops the sweeper. */
  close(): void {
    this.liveness.stop();
    for (const s of [...this.core.sessions.values()]) s.close(new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'inventory is shutting down; reconnect'));
  }
}

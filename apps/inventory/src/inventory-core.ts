import type { AgentSession } from '@llmgw/agent-rpc';
import type { agentV1, inventoryV1 } from '@llmgw/contracts';
import type { FleetNode } from '@llmgw/inventory-rpc';
import type { Logger } from '@llmgw/observability';
import type { FenceStore } from './fence';
import type { FleetStore } from './fleet-store';
import type { IntentStore, NodeIntentRecord } from './intent-store';
import { NO_METRICS, type InventoryMetrics } from './metrics';

export type LogsReply = agentV1.LogsReply;

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
  fetchLogs(
    owner: string,
    req: inventoryV1.FetchLogsRequest__Output,
    write: (c: LogsReply) => Promise<void>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<void>;
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

/**
 * What the inventory's parts share: the options, the agent streams this
 * instance holds, last-seen times and the latest engine stats per node.
 */
export class InventoryCore {
  readonly sessions = new Map<string, AgentSession>();
  readonly seenAt = new Map<string, number>();
  readonly stats = new Map<string, Map<string, agentV1.EngineStats__Output>>();
  readonly statsListeners = new Set<(nodeId: string, s: agentV1.EngineStats__Output) => void>();
  readonly clock: () => number;
  readonly metrics: InventoryMetrics;

  constructor(readonly o: InventoryOptions) {
    this.clock = o.clock ?? Date.now;
    this.metrics = o.metrics ?? NO_METRICS;
  }

  /** Nodes as served: records with the freshest last-seen time known. */
  nodes(): FleetNode[] {
    return this.o.store.mirror.all().map((n) => this.withSeen(n));
  }

  node(nodeId: string): FleetNode | undefined {
    const n = this.o.store.mirror.get(nodeId);
    return n && this.withSeen(n);
  }

  lastSeen(n: FleetNode): number {
    const id = n.info!.nodeId;
    return Math.max(n.lastSeenMs, this.seenAt.get(id) ?? 0, this.o.peers?.seen(id) ?? 0);
  }

  withSeen(n: FleetNode): FleetNode {
    const t = this.lastSeen(n);
    return t === n.lastSeenMs ? n : { ...n, lastSeenMs: t };
  }
}

export function intentFields(
  rec: NodeIntentRecord | undefined,
): Pick<FleetNode, 'intent' | 'intentReason' | 'intentSinceMs' | 'intentDrainTimeoutMs' | 'intentActor'> {
  return rec
    ? { intent: rec.intent, intentReason: rec.reason, intentSinceMs: rec.sinceMs, intentDrainTimeoutMs: rec.drainTimeoutMs ?? 0, intentActor: rec.actor }
    : { intent: 'NODE_INTENT_UNSPECIFIED', intentReason: '', intentSinceMs: 0, intentDrainTimeoutMs: 0, intentActor: '' };
}

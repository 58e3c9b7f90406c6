import type * as grpc from '@grpc/grpc-js';
import { isTerminalShardState, type agentV1, type controlV1 } from '@llmgw/contracts';
import { boundedSchema, callerActor, serverStream, unary, type UnaryLogger } from '@llmgw/grpc';
import type { FleetNode } from '@llmgw/inventory-rpc';
import { z } from 'zod';
import type { AuditSink } from './audit';
import { pageOfNodes } from './node-page';

export type ControlNode = controlV1.Node;
export type NodeAdminResponse = controlV1.NodeAdminResponse;
export type LogsReply = agentV1.LogsReply;

/**
 * A node's combined state (docs/inventory.md#node-states): connectivity first (Lost, then
 * Unreachable), then operator intent (Draining, Cordoned), else Ready; with
 * the reason and time of the part that decided it.
 */
export function nodeState(n: FleetNode): { state: controlV1.NodeState__Output; reason: string; sinceMs: number } {
  if (n.connectivity === 'CONNECTIVITY_LOST') return { state: 'NODE_STATE_LOST', reason: n.connectivityReason, sinceMs: n.connectivitySinceMs };
  if (n.connectivity !== 'CONNECTIVITY_CONNECTED') return { state: 'NODE_STATE_UNREACHABLE', reason: n.connectivityReason, sinceMs: n.connectivitySinceMs };
  if (n.intent === 'NODE_INTENT_DRAINING') return { state: 'NODE_STATE_DRAINING', reason: n.intentReason, sinceMs: n.intentSinceMs };
  if (n.intent === 'NODE_INTENT_CORDONED') return { state: 'NODE_STATE_CORDONED', reason: n.intentReason, sinceMs: n.intentSinceMs };
  return { state: 'NODE_STATE_READY', reason: n.connectivityReason, sinceMs: n.connectivitySinceMs };
}

/** GPUs held by live shards, from the specs the agent reported. */
export function gpuAllocations(shards: readonly agentV1.ShardStatus__Output[]): controlV1.GpuAllocation[] {
  const out: controlV1.GpuAllocation[] = [];
  for (const s of shards) {
    if (isTerminalShardState(s.state) || !s.spec) continue; // a terminal shard holds no GPU
    for (const gpuIndex of s.spec.gpuIndices) out.push({ gpuIndex, shardId: s.shardId, replicaId: s.replicaId || s.spec.replicaId, model: s.spec.model });
  }
  return out.sort((a, b) => (a.gpuIndex ?? 0) - (b.gpuIndex ?? 0));
}

/** Inventory's view of a node → the ControlService's (what ctl shows). */
export function toControlNode(n: FleetNode, engineStats: readonly agentV1.EngineStats__Output[] = []): ControlNode {
  const st = nodeState(n);
  return {
    info: n.info,
    state: st.state,
    stateReason: st.reason,
    stateSinceMs: st.sinceMs,
    lastSeenMs: n.lastSeenMs,
    gpuHealth: n.gpuHealth,
    allocations: gpuAllocations(n.shards),
    shards: n.shards,
    engineStats: [...engineStats],
    heartbeatIntervalMs: n.heartbeatIntervalMs,
    hostSensors: n.hostSensors ?? null,
  };
}

/** Who asked (`callerActor`: certificate CN, else `x-llmgw-actor`, else "anonymous"), for logs, intent records and the audit log. */
export type Actor = string;

/**
 * The node half of the ControlService (ListNodes, GetNode, Cordon/Uncordon/
 * Drain, Logs). The placement-scheduler answers it with `InventoryNodeAdmin`
 * (inventory's InventoryService, the identity forwarded in metadata).
 * Errors are LlmgwErrors (LLMGW_ERR_NOT_FOUND for an unknown node, …).
 */
export interface NodeAdminBackend {
  listNodes(): Promise<ControlNode[]>;
  getNode(nodeId: string): Promise<ControlNode>;
  cordon(nodeId: string, reason: string, actor: Actor): Promise<NodeAdminResponse>;
  uncordon(nodeId: string, actor: Actor): Promise<NodeAdminResponse>;
  drain(nodeId: string, reason: string, replicaDrainTimeoutMs: number, actor: Actor): Promise<NodeAdminResponse>;
  /** Streams the log chunks (the last with eof); returns when done or when `signal` aborts. */
  logs(req: controlV1.LogsRequest__Output, write: (chunk: LogsReply) => Promise<void>, signal: AbortSignal, actor: Actor): Promise<void>;
}

/** The longest node, shard or replica id accepted (docs/placement.md, "Limits"). */
const MAX_ID = 253;
const nodeId = z.string().trim().min(1, 'node_id is required').max(MAX_ID);
const reason = z.string().max(1024, 'reason is at most 1024 characters');
const cordonSchema = z.object({ nodeId, reason }).passthrough();
const uncordonSchema = z.object({ nodeId }).passthrough();
const drainSchema = z
  .object({ nodeId, reason, replicaDrainTimeoutMs: z.number().int().min(0).max(86_400_000, 'replica_drain_timeout_ms is at most 24 h') })
  .passthrough();
const getSchema = z.object({ nodeId }).passthrough();
const listSchema = z
  .object({
    pageSize: z.number().int().min(0).max(10_000, 'page_size is at most 10000'),
    page: z.number().int().min(0),
    state: z.string().max(30, 'state is at most 30 characters'),
  })
  .passthrough();
const logsSchema = z
  .object({
    nodeId: z.string().max(MAX_ID),
    source: z.enum(['LOG_SOURCE_AGENT', 'LOG_SOURCE_SHARD'], { message: 'source must be LOG_SOURCE_AGENT or LOG_SOURCE_SHARD' }),
    shardId: z.string().max(MAX_ID),
    replicaId: z.string().max(MAX_ID),
    tailLines: z.number().int().min(0).max(100_000),
    sinceMs: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  })
  .passthrough()
  .superRefine((r, ctx) => {
    if (r.source === 'LOG_SOURCE_AGENT' && !r.nodeId) ctx.addIssue({ code: 'custom', path: ['nodeId'], message: 'node_id is required for the agent log' });
    if (r.source === 'LOG_SOURCE_SHARD' && !r.shardId && !r.replicaId)
      ctx.addIssue({ code: 'custom', path: ['shardId'], message: 'shard_id or replica_id is required for a shard log' });
  });

export type ControlNodeHandlers = Pick<controlV1.ControlServiceHandlers, 'ListNodes' | 'GetNode' | 'CordonNode' | 'UncordonNode' | 'DrainNode' | 'Logs'>;

/**
 * grpc-js handlers for the node half of llmgw.control.v1.ControlService over
 * a backend: validated input (INVALID_ARGUMENT listing every problem),
 * thrown LlmgwErrors as their catalogue statuses, the caller's identity
 * (`callerActor`: certificate CN, else `x-llmgw-actor`) handed to the
 * backend and, for cordon, uncordon and drain, to the audit log. Spread them
 * into the service implementation next to the model half.
 */
export function controlNodeHandlers(backend: NodeAdminBackend, opts: { log?: UnaryLogger; audit?: AuditSink } = {}): ControlNodeHandlers {
  const log = opts.log;
  const audited = (actor: Actor, action: string, nodeId: string, details: Record<string, unknown>, res: NodeAdminResponse): NodeAdminResponse => {
    opts.audit?.record({ actor, action, targetType: 'node', targetId: nodeId, details: { ...details, changed: res.changed } });
    return res;
  };
  return {
    ListNodes: unary({ log, schema: boundedSchema(listSchema), handler: async (r) => pageOfNodes(await backend.listNodes(), r) }),
    GetNode: unary({ log, schema: boundedSchema(getSchema), handler: (r) => backend.getNode(r.nodeId) }),
    CordonNode: unary({
      log,
      schema: boundedSchema(cordonSchema),
      handler: async (r, ctx) => {
        const actor = callerActor(ctx.call);
        return audited(actor, 'node.cordon', r.nodeId, { reason: r.reason }, await backend.cordon(r.nodeId, r.reason, actor));
      },
    }),
    UncordonNode: unary({
      log,
      schema: boundedSchema(uncordonSchema),
      handler: async (r, ctx) => {
        const actor = callerActor(ctx.call);
        return audited(actor, 'node.uncordon', r.nodeId, {}, await backend.uncordon(r.nodeId, actor));
      },
    }),
    DrainNode: unary({
      log,
      schema: boundedSchema(drainSchema),
      handler: async (r, ctx) => {
        const actor = callerActor(ctx.call);
        const res = await backend.drain(r.nodeId, r.reason, r.replicaDrainTimeoutMs, actor);
        return audited(
          actor,
          'node.drain',
          r.nodeId,
          { reason: r.reason, replicaDrainTimeoutMs: r.replicaDrainTimeoutMs, replicas: res.replicaIds ?? [] },
          res,
        );
      },
    }),
    Logs: serverStream({
      log,
      schema: boundedSchema(logsSchema) as unknown as z.ZodType<controlV1.LogsRequest__Output>,
      handler: (r, ctx) => backend.logs(r, ctx.write, ctx.signal, callerActor(ctx.call as unknown as grpc.ServerUnaryCall<unknown, unknown>)),
    }),
  };
}

import type * as grpc from '@grpc/grpc-js';
import type { agentV1, inventoryV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import {
  boundedSchema,
  callerActor,
  endStreamWithError,
  findOversized,
  remainingMs,
  serverStream,
  unary,
  type BoundsSpec,
  type UnaryLogger,
} from '@llmgw/grpc';
import { z } from 'zod';

/** What a watch gets: events pushed synchronously, in order. */
export interface WatchSink {
  push(ev: inventoryV1.FleetEvent): void;
  /** Ends the watch with an error status (e.g. UNAVAILABLE on shutdown: the caller resumes elsewhere). */
  end?(err: unknown): void;
}

/**
 * Inventory's side of llmgw.inventory.v1.InventoryService. `watch` must, in
 * one synchronous step, push either the replay after the requested revision
 * or a snapshot, and register the sink for every later event — so nothing
 * falls between the two. It returns the unsubscribe function.
 */
export interface InventoryBackend {
  listNodes(req?: inventoryV1.ListNodesRequest__Output): inventoryV1.ListNodesResponse;
  /** Operator intent; `actor` is the identity the caller forwarded (`callerActor`). */
  setNodeIntent(req: inventoryV1.SetNodeIntentRequest__Output, actor: string): Promise<inventoryV1.SetNodeIntentResponse>;
  watch(req: inventoryV1.WatchFleetRequest__Output, sink: WatchSink): () => void;
  sendShardCommand(
    req: inventoryV1.ShardCommandRequest__Output,
    ctx: { deadlineMs: number; signal: AbortSignal; requestId: string },
  ): Promise<inventoryV1.ShardCommandResponse>;
  fetchLogs(req: inventoryV1.FetchLogsRequest__Output, write: (chunk: agentV1.LogsReply) => Promise<void>, signal: AbortSignal): Promise<void>;
}

export interface InventoryHandlerOptions {
  log?: UnaryLogger;
  /** A watcher this many events behind is ended with RESOURCE_EXHAUSTED (it resumes). Default 50000. */
  maxWatchQueue?: number;
}

/** The longest node, shard, replica, command or request id accepted (docs/inventory.md, "Limits"). */
export const MAX_ID_CHARS = 200;
const idSchema = z.string().trim().min(1, 'is required').max(MAX_ID_CHARS);
/** Every string and repeated field of a request is bounded; ids by MAX_ID_CHARS. */
const ID_BOUND = { string: MAX_ID_CHARS };
const BOUNDS: BoundsSpec = {
  maxString: 4096,
  maxRepeated: 1024,
  fields: { nodeId: ID_BOUND, shardId: ID_BOUND, replicaId: ID_BOUND, commandId: ID_BOUND, requestId: ID_BOUND, resumeEpoch: ID_BOUND },
};
const optionalId = z.string().max(MAX_ID_CHARS);
const safeMs = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const commandSchema = z
  .object({
    nodeId: idSchema,
    command: z.enum(['start', 'stop', 'drain'], { message: 'one of start, stop, drain is required' }),
    fencingToken: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  })
  .passthrough()
  .superRefine((r: any, ctx) => {
    const c = r[r.command];
    const cmdId = c?.commandId;
    if (typeof cmdId !== 'string' || !cmdId) ctx.addIssue({ code: 'custom', path: [r.command, 'commandId'], message: 'command_id is required' });
    else if (cmdId.length > MAX_ID_CHARS) ctx.addIssue({ code: 'custom', path: [r.command, 'commandId'], message: `at most ${MAX_ID_CHARS} characters` });
    const shardId = r.command === 'start' ? c?.spec?.shardId : c?.shardId;
    const shardPath = [r.command, r.command === 'start' ? 'spec.shardId' : 'shardId'];
    if (typeof shardId !== 'string' || !shardId) ctx.addIssue({ code: 'custom', path: shardPath, message: 'shard_id is required' });
    else if (shardId.length > MAX_ID_CHARS) ctx.addIssue({ code: 'custom', path: shardPath, message: `at most ${MAX_ID_CHARS} characters` });
  });
const intentSchema = z
  .object({
    nodeId: idSchema,
    intent: z.enum(['NODE_INTENT_UNSPECIFIED', 'NODE_INTENT_CORDONED', 'NODE_INTENT_DRAINING'], { message: 'intent must be a NodeIntent' }),
    reason: z.string().max(1024, 'reason is at most 1024 characters'),
    drainTimeoutMs: z.number().int().min(0).max(86_400_000, 'drain_timeout_ms is at most 24 h'),
  })
  .passthrough();
const listSchema = z.object({ includeStats: z.boolean(), nodeId: optionalId }).passthrough();
const logsSchema = z
  .object({
    nodeId: idSchema,
    request: z
      .object({
        requestId: optionalId,
        source: z.enum(['LOG_SOURCE_AGENT', 'LOG_SOURCE_SHARD'], { message: 'source must be LOG_SOURCE_AGENT or LOG_SOURCE_SHARD' }),
        shardId: optionalId,
        tailLines: z.number().int().min(0).max(100_000),
        sinceMs: safeMs,
      })
      .passthrough(),
  })
  .passthrough()
  .superRefine((r, ctx) => {
    if (r.request.source === 'LOG_SOURCE_SHARD' && !r.request.shardId)
      ctx.addIssue({ code: 'custom', path: ['request', 'shardId'], message: 'shard_id is required for a shard log' });
  });
const watchSchema = z.object({ includeStats: z.boolean(), resumeAfterRevision: safeMs, resumeEpoch: optionalId }).passthrough();

/**
 * grpc-js handlers for llmgw.inventory.v1.InventoryService over a backend:
 * validated requests (INVALID_ARGUMENT listing every issue), the call's
 * deadline handed to command relays, and watches fed through a bounded
 * queue that honours transport backpressure.
 */
export function inventoryServiceHandlers(backend: InventoryBackend, opts: InventoryHandlerOptions = {}): inventoryV1.InventoryServiceHandlers {
  const maxQueue = opts.maxWatchQueue ?? 50_000;
  return {
    ListNodes: unary({
      log: opts.log,
      schema: boundedSchema(listSchema, BOUNDS) as unknown as z.ZodType<inventoryV1.ListNodesRequest__Output>,
      handler: (r) => backend.listNodes(r),
    }),
    SetNodeIntent: unary({
      log: opts.log,
      schema: boundedSchema(intentSchema, BOUNDS) as unknown as z.ZodType<inventoryV1.SetNodeIntentRequest__Output>,
      handler: (r, ctx) => backend.setNodeIntent(r, callerActor(ctx.call)),
    }),
    SendShardCommand: unary({
      log: opts.log,
      schema: boundedSchema(commandSchema, BOUNDS) as unknown as z.ZodType<inventoryV1.ShardCommandRequest__Output>,
      handler: (r, ctx) => backend.sendShardCommand(r, { deadlineMs: remainingMs(ctx.call), signal: ctx.signal, requestId: ctx.requestId }),
    }),
    FetchLogs: serverStream({
      log: opts.log,
      schema: boundedSchema(logsSchema, BOUNDS) as unknown as z.ZodType<inventoryV1.FetchLogsRequest__Output>,
      handler: (r, ctx) => backend.fetchLogs(r, ctx.write, ctx.signal),
    }),
    WatchFleet: (call: grpc.ServerWritableStream<inventoryV1.WatchFleetRequest__Output, inventoryV1.FleetEvent>) => {
      const queue: inventoryV1.FleetEvent[] = [];
      let waiting = false;
      let done = false;
      const finish = (err?: unknown) => {
        if (done) return;
        done = true;
        unsubscribe();
        queue.length = 0;
        if (err) endStreamWithError(call, err);
      };
      const pump = () => {
        while (!done && queue.length) {
          const ok = call.write(queue.shift()!);
          if (!ok) {
            waiting = true;
            call.once('drain', () => {
              waiting = false;
              pump();
            });
            return;
          }
        }
      };
      const sink: WatchSink = {
        push(ev) {
          if (done) return;
          queue.push(ev);
          if (queue.length > maxQueue)
            return finish(new LlmgwError('LLMGW_ERR_UNAVAILABLE', `watcher fell ${maxQueue} events behind; resume from the last revision applied`));
          if (!waiting) pump();
        },
        end: (err) => finish(err),
      };
      let unsubscribe: () => void = () => undefined;
      call.on('cancelled', () => finish());
      call.on('close', () => finish());
      const parsed = watchSchema.safeParse(call.request);
      const big = findOversized(call.request, BOUNDS);
      if (big || !parsed.success) {
        const detail = big ? `${big.field}: ${big.detail}` : parsed.error!.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
        return finish(new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', detail));
      }
      try {
        unsubscribe = backend.watch(call.request, sink);
      } catch (e) {
        finish(e);
      }
    },
  };
}

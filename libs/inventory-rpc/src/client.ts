import * as grpc from '@grpc/grpc-js';
import type { agentV1, inventoryV1 } from '@llmgw/contracts';
import { callUnary, fromGrpcError, makeClient, withRequestId, deadlineIn, type CallOptions, type ClientTlsOptions } from '@llmgw/grpc';
import type { FleetEvent } from './fleet-view';
import { inventoryClientConstructor } from './proto';

export interface RpcClientOptions {
  /** "host:port". */
  address: string;
  /** TLS / mTLS material; plaintext when absent. */
  tls?: ClientTlsOptions;
  channelOptions?: grpc.ChannelOptions;
  /** Deadline of unary calls without their own, ms (default 10000). */
  callTimeoutMs?: number;
  /** Told of every call's and the fleet watch's outcome: inventory lost / back (the service host's `ctx.dependency`). */
  dependency?: CallOptions['dependency'];
}

export const CHANNEL_DEFAULTS: grpc.ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2000,
  'grpc.keepalive_time_ms': 30_000,
};

/** A server stream as an async iterable; a failure throws the LlmgwError `fromGrpcError` rebuilds. */
export async function* readStream<T>(stream: grpc.ClientReadableStream<T>, signal?: AbortSignal): AsyncGenerator<T> {
  const onAbort = () => stream.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const m of stream) yield m as T;
  } catch (e) {
    if (signal?.aborted) return;
    throw fromGrpcError(e);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stream.cancel();
  }
}

export function streamOptions(opts: CallOptions & { signal?: AbortSignal }): { md: grpc.Metadata; callOpts: grpc.CallOptions } {
  const md = opts.metadata ?? new grpc.Metadata();
  if (opts.requestId) withRequestId(opts.requestId, md);
  return { md, callOpts: opts.deadlineMs ? { deadline: deadlineIn(opts.deadlineMs) } : {} };
}

export interface WatchFleetOptions {
  /** Also deliver EngineStats events. */
  includeStats?: boolean;
  /**
   * Every event, in order. After a reconnect the stream either continues
   * where it left off (resumed: no snapshot) or starts with a snapshot that
   * replaces everything the consumer knew.
   */
  onEvent(ev: FleetEvent): void;
  /** Told when the stream opens (first event received) and when it drops. */
  onConnection?(connected: boolean, err?: Error): void;
  /** Resume from a revision the consumer already holds (e.g. after its own restart). */
  resumeFrom?: { revision: number; epoch: string };
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Told `lost` on every failed (re)connect and `ok` when events flow again. */
  dependency?: CallOptions['dependency'];
}

/**
 * A WatchFleet that never ends until closed: on any disconnect it reconnects
 * with jittered exponential backoff and resumes after the last revision it
 * delivered, so the consumer sees every change exactly once, in order (or a
 * fresh snapshot when the server can no longer replay).
 */
export class FleetWatch {
  revision = 0;
  epoch = '';
  private call?: grpc.ClientReadableStream<inventoryV1.FleetEvent__Output>;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private failures = 0;
  private connected = false;

  constructor(
    private readonly client: inventoryV1.InventoryServiceClient,
    private readonly o: WatchFleetOptions,
  ) {
    if (o.resumeFrom) {
      this.revision = o.resumeFrom.revision;
      this.epoch = o.resumeFrom.epoch;
    }
    this.open();
  }

  private open(): void {
    if (this.closed) return;
    let call: grpc.ClientReadableStream<inventoryV1.FleetEvent__Output>;
    try {
      call = this.client.WatchFleet({ includeStats: !!this.o.includeStats, resumeAfterRevision: this.revision, resumeEpoch: this.epoch });
    } catch (e) {
      // The client was closed under us: nothing left to watch with.
      this.closed = true;
      this.o.onConnection?.(false, e as Error);
      return;
    }
    this.call = call;
    call.on('data', (ev: inventoryV1.FleetEvent__Output) => {
      if (this.call !== call) return;
      if (!this.connected) {
        this.connected = true;
        this.failures = 0;
        this.o.dependency?.ok();
        this.o.onConnection?.(true);
      }
      if (ev.event !== 'stats') {
        this.revision = ev.revision;
        this.epoch = ev.epoch;
      }
      this.o.onEvent(ev);
    });
    const drop = (err?: Error) => {
      if (this.call !== call) return;
      this.call = undefined;
      call.removeAllListeners('data');
      if (this.connected) this.o.onConnection?.(false, err);
      this.connected = false;
      if (this.closed) return;
      this.o.dependency?.lost(err ?? new Error('fleet watch ended'));
      const base = Math.min(this.o.maxBackoffMs ?? 5000, (this.o.minBackoffMs ?? 200) * 2 ** Math.min(this.failures++, 10));
      this.timer = setTimeout(() => this.open(), base * (0.5 + Math.random() / 2));
    };
    call.on('error', (e) => drop(fromGrpcError(e)));
    call.on('end', () => drop());
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.call;
    this.call = undefined;
    c?.cancel();
  }
}

/**
 * A typed client for llmgw.inventory.v1.InventoryService (what the
 * placement-scheduler uses): promises for unary calls, async iterables for
 * log streams, and a self-resuming fleet watch.
 */
export class InventoryClient {
  readonly raw: inventoryV1.InventoryServiceClient;
  private readonly timeout: number;

  constructor(readonly o: RpcClientOptions) {
    this.raw = makeClient(inventoryClientConstructor(), o.address, { tls: o.tls, channelOptions: { ...CHANNEL_DEFAULTS, ...o.channelOptions } });
    this.timeout = o.callTimeoutMs ?? 10_000;
  }

  /** The fleet once; `includeStats` adds each shard's latest EngineStats, `nodeId` narrows it to one node. */
  listNodes(req: inventoryV1.ListNodesRequest = {}, opts: CallOptions = {}): Promise<inventoryV1.ListNodesResponse__Output> {
    return callUnary(this.raw, 'ListNodes', req, { deadlineMs: this.timeout, idempotent: true, dependency: this.o.dependency, ...opts });
  }

  /** Operator intent for a node; the operator's identity goes in `opts.metadata` (`withActor`). */
  setNodeIntent(req: inventoryV1.SetNodeIntentRequest, opts: CallOptions = {}): Promise<inventoryV1.SetNodeIntentResponse__Output> {
    return callUnary(this.raw, 'SetNodeIntent', req, { deadlineMs: this.timeout, idempotent: true, dependency: this.o.dependency, ...opts });
  }

  /** Relays one command; resolves with the agent's Ack, rejects with an LlmgwError (NOT_FOUND, UNAVAILABLE, DEADLINE_EXCEEDED, …). */
  sendShardCommand(req: inventoryV1.ShardCommandRequest, opts: CallOptions = {}): Promise<inventoryV1.ShardCommandResponse__Output> {
    return callUnary(this.raw, 'SendShardCommand', req, { deadlineMs: this.timeout, dependency: this.o.dependency, ...opts });
  }

  fetchLogs(req: inventoryV1.FetchLogsRequest, opts: CallOptions & { signal?: AbortSignal } = {}): AsyncGenerator<agentV1.LogsReply__Output> {
    const { md, callOpts } = streamOptions({ deadlineMs: this.timeout, ...opts });
    return readStream(this.raw.FetchLogs(req, md, callOpts), opts.signal);
  }

  watchFleet(o: WatchFleetOptions): FleetWatch {
    return new FleetWatch(this.raw, { dependency: this.o.dependency, ...o });
  }

  close(): void {
    this.raw.close();
  }
}

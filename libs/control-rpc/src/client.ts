import * as grpc from '@grpc/grpc-js';
import type { agentV1, controlV1 } from '@llmgw/contracts';
import { callUnary, makeClient, withActor, type CallOptions } from '@llmgw/grpc';
import { CHANNEL_DEFAULTS, readStream, streamOptions, type RpcClientOptions } from '@llmgw/inventory-rpc';
import { controlClientConstructor } from './proto';

export interface ControlClientOptions extends RpcClientOptions {
  /** `x-llmgw-actor` on every call (`ctl --actor`): who the audit log names when the channel has no client certificate. */
  actor?: string;
}

/**
 * A typed client for llmgw.control.v1.ControlService, which the
 * placement-scheduler serves (`llmgw ctl`, the portal). `unary` reaches any
 * other method by name.
 */
export class ControlClient {
  readonly raw: controlV1.ControlServiceClient;
  private readonly timeout: number;

  constructor(readonly o: ControlClientOptions) {
    this.raw = makeClient(controlClientConstructor(), o.address, { tls: o.tls, channelOptions: { ...CHANNEL_DEFAULTS, ...o.channelOptions } });
    this.timeout = o.callTimeoutMs ?? 10_000;
  }

  private md(opts: CallOptions): grpc.Metadata {
    return withActor(this.o.actor, opts.metadata?.clone() ?? new grpc.Metadata());
  }

  unary<Res>(method: keyof controlV1.ControlServiceClient & string, req: unknown, opts: CallOptions = {}): Promise<Res> {
    return callUnary<Res>(this.raw, method, req, { deadlineMs: this.timeout, ...opts, metadata: this.md(opts) });
  }

  /** Every node, or one page of them (`req`, docs/portal.md "Scale"). */
  listNodes(opts: CallOptions = {}, req: controlV1.ListNodesRequest = {}): Promise<controlV1.ListNodesResponse__Output> {
    return this.unary('ListNodes', req, opts);
  }

  getNode(nodeId: string, opts: CallOptions = {}): Promise<controlV1.Node__Output> {
    return this.unary('GetNode', { nodeId }, opts);
  }

  cordon(nodeId: string, reason = '', opts: CallOptions = {}): Promise<controlV1.NodeAdminResponse__Output> {
    return this.unary('CordonNode', { nodeId, reason }, opts);
  }

  uncordon(nodeId: string, opts: CallOptions = {}): Promise<controlV1.NodeAdminResponse__Output> {
    return this.unary('UncordonNode', { nodeId }, opts);
  }

  drain(nodeId: string, reason = '', replicaDrainTimeoutMs = 0, opts: CallOptions = {}): Promise<controlV1.NodeAdminResponse__Output> {
    return this.unary('DrainNode', { nodeId, reason, replicaDrainTimeoutMs }, opts);
  }

  logs(req: controlV1.LogsRequest, opts: CallOptions & { signal?: AbortSignal } = {}): AsyncGenerator<agentV1.LogsReply__Output> {
    const { md, callOpts } = streamOptions({ deadlineMs: this.timeout, ...opts, metadata: this.md(opts) });
    return readStream(this.raw.Logs(req, md, callOpts), opts.signal);
  }

  close(): void {
    this.raw.close();
  }
}

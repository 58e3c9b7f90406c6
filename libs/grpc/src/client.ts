import * as grpc from '@grpc/grpc-js';
import { LlmgwError } from '@llmgw/errors';
import { failSpan, inSpan, SpanKind } from '@llmgw/observability';
import { childCallOptions } from './deadline';
import { fromGrpcError, LLMGW_CODE_KEY } from './errors';
import { outgoingMetadata } from './metadata';

export interface CallOptions {
  /** Deadline from now, in ms, for the whole call (retries included). */
  deadlineMs?: number;
  /** The call being served, whose deadline caps this one. */
  parent?: { getDeadline(): grpc.Deadline };
  /** Sent as x-request-id. */
  requestId?: string;
  /** Extra metadata (x-request-id and traceparent are added to it). */
  metadata?: grpc.Metadata;
  /** Aborting it cancels the call (CANCELLED). */
  signal?: AbortSignal;
  /**
   * The method may be repeated without changing the outcome (a read, a
   * renewal). Only then is a call that failed UNAVAILABLE (it reached no
   * server, or the server was not serving) retried, up to `retries` times
   * with doubling backoff, within the deadline.
   */
  idempotent?: boolean;
  /** Retries of an idempotent call; default 2. */
  retries?: number;
  /** First retry delay, ms; default 50. */
  retryDelayMs?: number;
  /**
   * Told how the call went (the service host's `ctx.dependency`): `lost` when
   * it failed UNAVAILABLE (no server reached), `ok` when a server answered,
   * with a result or with any other status. Deadlines and cancels say neither.
   */
  dependency?: { lost(err: unknown): void; ok(): void };
}

/** A unary method of a generated client, in its (argument, metadata, options, callback) form. */
type UnaryMethod = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => grpc.ClientUnaryCall;

/**
 * The one way llmgw calls a unary gRPC method: a deadline (capped by the
 * parent call's), `x-request-id` and W3C `traceparent` in metadata, a client
 * span around the call, cancellation by `signal`, retries only for idempotent
 * methods, and failures rejected as the LlmgwError `fromGrpcError` rebuilds
 * (its `grpcCode` says what happened on the wire).
 */
export function callUnary<Res>(client: grpc.Client, method: string, req: unknown, opts: CallOptions = {}): Promise<Res> {
  const fn = (client as unknown as Record<string, unknown>)[method] as UnaryMethod | undefined;
  if (typeof fn !== 'function') return Promise.reject(new Error(`callUnary: client has no method ${method}`));
  const base = childCallOptions(opts.parent, opts.deadlineMs);
  const retries = opts.idempotent ? (opts.retries ?? 2) : 0;
  return inSpan(
    `grpc.client ${method}`,
    { 'rpc.system': 'grpc', 'rpc.method': method, 'rpc.peer': client.getChannel().getTarget() },
    async (span) => {
      // The trace context of this span goes into the metadata, so the server's span is its child.
      const md = outgoingMetadata(opts.requestId, opts.metadata?.clone() ?? new grpc.Metadata());
      // The last status the server sent itself: a deadline spent on a retry says less than it.
      let answered: LlmgwError | undefined;
      for (let attempt = 0; ; attempt++) {
        try {
          const res = await once<Res>(client, fn, req, md, base, opts.signal);
          opts.dependency?.ok();
          return res;
        } catch (e) {
          let err = fromGrpcError(e);
          const deadline = base.deadline instanceof Date ? base.deadline.getTime() : (base.deadline as number | undefined);
          const delay = (opts.retryDelayMs ?? 50) * 2 ** attempt;
          const retry =
            attempt < retries && err.grpcCode === grpc.status.UNAVAILABLE && !opts.signal?.aborted && (deadline === undefined || Date.now() + delay < deadline);
          // A status the server sent itself (its llmgw-code trailer) is an answer, even UNAVAILABLE ("no agent stream").
          const fromPeer =
            (e as { metadata?: unknown })?.metadata instanceof grpc.Metadata && (e as { metadata: grpc.Metadata }).metadata.get(LLMGW_CODE_KEY).length > 0;
          if (!retry) {
            if (!fromPeer && err.grpcCode === grpc.status.DEADLINE_EXCEEDED && answered) err = answered;
            if (fromPeer) opts.dependency?.ok();
            else if (err.grpcCode === grpc.status.UNAVAILABLE) opts.dependency?.lost(err);
            else if (err.grpcCode !== grpc.status.DEADLINE_EXCEEDED && err.grpcCode !== grpc.status.CANCELLED) opts.dependency?.ok();
            span.setAttribute('rpc.grpc.status_code', err.grpcCode);
            if (attempt) span.setAttribute('llmgw.retries', attempt);
            failSpan(span, err.message);
            throw err;
          }
          if (fromPeer) answered = err;
          span.addEvent('retry', { attempt: attempt + 1, reason: err.message });
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    },
    { kind: SpanKind.CLIENT },
  );
}

function once<Res>(client: grpc.Client, fn: UnaryMethod, req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, signal?: AbortSignal): Promise<Res> {
  if (signal?.aborted) return Promise.reject(new LlmgwError('LLMGW_ERR_CANCELLED', 'call cancelled before it started'));
  return new Promise<Res>((resolve, reject) => {
    const call = fn.call(client, req, md, opts, (err, res) => {
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(res as Res);
    });
    const onAbort = () => call.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

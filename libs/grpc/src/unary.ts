import type * as grpc from '@grpc/grpc-js';
import { LlmgwError, isLlmgwError } from '@llmgw/errors';
import { inSpan, SpanKind } from '@llmgw/observability';
import type { z } from 'zod';
import { toGrpcError } from './errors';
import { requestIdOf, traceContextOf } from './metadata';

/** What a unary handler gets besides its request. */
export interface UnaryContext {
  /** From the caller's x-request-id, or fresh. */
  requestId: string;
  metadata: grpc.Metadata;
  /** Aborted when the caller cancels or its deadline passes. */
  signal: AbortSignal;
  call: grpc.ServerUnaryCall<unknown, unknown>;
}

/** A minimal logger shape so this lib does not need pino's types. */
export interface UnaryLogger {
  error(obj: object, msg: string): void;
}

/**
 * Runs a handler the way every llmgw server does: inside a server span that
 * continues the caller's trace (its `traceparent` metadata), so log lines and
 * downstream calls made by the handler carry the same trace id.
 */
export function serveTraced<T>(call: { metadata: grpc.Metadata; getPath(): string }, requestId: string, fn: () => Promise<T>): Promise<T> {
  return inSpan(`grpc.server ${call.getPath()}`, { 'rpc.system': 'grpc', 'rpc.method': call.getPath(), 'llmgw.request_id': requestId }, fn, {
    kind: SpanKind.SERVER,
    parent: traceContextOf(call),
  });
}

export interface UnaryOptions<Req, Res> {
  /** Validates (and may transform) the decoded request; failures → INVALID_ARGUMENT. */
  schema?: z.ZodType<Req>;
  handler: (req: Req, ctx: UnaryContext) => Promise<Res> | Res;
  /** Unexpected (non-LlmgwError) failures are logged here with the request id. */
  log?: UnaryLogger;
}

/**
 * Wraps an async handler as a grpc-js unary handler: validates input with
 * zod, passes the request id and a cancellation signal, and converts whatever
 * is thrown with `toGrpcError` (so an unexpected error becomes INTERNAL
 * without leaking its message).
 */
export function unary<Req, Res>(opts: UnaryOptions<Req, Res>): grpc.handleUnaryCall<any, Res> {
  return (call, callback) => {
    const requestId = requestIdOf(call);
    const ac = new AbortController();
    call.on('cancelled', () => ac.abort());
    const run = async (): Promise<Res> => {
      let req: Req = call.request as Req;
      if (opts.schema) {
        const parsed = opts.schema.safeParse(call.request);
        if (!parsed.success) {
          const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
          throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', detail);
        }
        req = parsed.data;
      }
      return opts.handler(req, { requestId, metadata: call.metadata, signal: ac.signal, call });
    };
    serveTraced(call, requestId, run).then(
      (res) => callback(null, res),
      (e) => {
        if (!isLlmgwError(e)) opts.log?.error({ err: e, reqId: requestId, method: call.getPath() }, 'unhandled error in gRPC handler');
        callback(toGrpcError(e));
      },
    );
  };
}

import type * as grpc from '@grpc/grpc-js';
import { LlmgwError, isLlmgwError } from '@llmgw/errors';
import type { z } from 'zod';
import { toGrpcError } from './errors';
import { requestIdOf } from './metadata';
import type { UnaryLogger } from './unary';

/**
 * Ends a server-streaming or bidi call with the status `toGrpcError(e)` maps
 * to (grpc-js turns an 'error' event on a server stream into the final status).
 */
export function endStreamWithError(call: grpc.ServerWritableStream<any, any> | grpc.ServerDuplexStream<any, any>, e: unknown): void {
  call.emit('error', toGrpcError(e));
}

/** What a server-streaming handler gets besides its request. */
export interface ServerStreamContext<Res> {
  requestId: string;
  metadata: grpc.Metadata;
  /** Aborted when the caller cancels or its deadline passes; stop producing then. */
  signal: AbortSignal;
  /** Sends one message; resolves once the transport can take more (backpressure). */
  write(msg: Res): Promise<void>;
  call: grpc.ServerWritableStream<unknown, Res>;
}

export interface ServerStreamOptions<Req, Res> {
  /** Validates the request; failures → INVALID_ARGUMENT. */
  schema?: z.ZodType<Req>;
  /** Produces messages with ctx.write; the stream ends OK when it resolves. */
  handler: (req: Req, ctx: ServerStreamContext<Res>) => Promise<void>;
  log?: UnaryLogger;
}

/**
 * Wraps an async producer as a grpc-js server-streaming handler: validated
 * input, a cancellation signal, backpressure-aware writes, and thrown errors
 * converted with `toGrpcError`.
 */
export function serverStream<Req, Res>(opts: ServerStreamOptions<Req, Res>): grpc.handleServerStreamingCall<any, Res> {
  return (call) => {
    const requestId = requestIdOf(call);
    const ac = new AbortController();
    call.on('cancelled', () => ac.abort());
    const write = (msg: Res): Promise<void> =>
      new Promise((resolve) => {
        if (ac.signal.aborted) return resolve();
        if (call.write(msg)) return resolve();
        const done = () => {
          call.off('drain', done);
          ac.signal.removeEventListener('abort', done);
          resolve();
        };
        call.once('drain', done);
        ac.signal.addEventListener('abort', done, { once: true });
      });
    const run = async (): Promise<void> => {
      let req: Req = call.request as Req;
      if (opts.schema) {
        const parsed = opts.schema.safeParse(call.request);
        if (!parsed.success)
          throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
        req = parsed.data;
      }
      await opts.handler(req, { requestId, metadata: call.metadata, signal: ac.signal, write, call: call as grpc.ServerWritableStream<unknown, Res> });
    };
    run().then(
      () => {
        if (!ac.signal.aborted) call.end();
      },
      (e) => {
        if (ac.signal.aborted) return;
        if (!isLlmgwError(e)) opts.log?.error({ err: e, reqId: requestId, method: call.getPath() }, 'unhandled error in gRPC stream handler');
        endStreamWithError(call, e);
      },
    );
  };
}

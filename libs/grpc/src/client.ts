import * as grpc from '@grpc/grpc-js';
import { childCallOptions } from './deadline';
import { fromGrpcError } from './errors';
import { withRequestId } from './metadata';

export interface CallOptions {
  /** Deadline from now, in ms. */
  deadlineMs?: number;
  /** The call being served, whose deadline caps this one. */
  parent?: { getDeadline(): grpc.Deadline };
  /** Sent as x-request-id. */
  requestId?: string;
  metadata?: grpc.Metadata;
}

/**
 * Calls a unary method of a generated client and resolves with its response;
 * a failure rejects with the LlmgwError `fromGrpcError` rebuilds.
 */
export function callUnary<Res>(client: grpc.Client, method: string, req: unknown, opts: CallOptions = {}): Promise<Res> {
  const fn = (client as unknown as Record<string, unknown>)[method];
  if (typeof fn !== 'function') return Promise.reject(new Error(`callUnary: client has no method ${method}`));
  const md = opts.metadata ?? new grpc.Metadata();
  if (opts.requestId) withRequestId(opts.requestId, md);
  const callOpts = childCallOptions(opts.parent, opts.deadlineMs);
  return new Promise<Res>((resolve, reject) => {
    fn.call(client, req, md, callOpts, (err: grpc.ServiceError | null, res: Res) => (err ? reject(fromGrpcError(err)) : resolve(res)));
  });
}

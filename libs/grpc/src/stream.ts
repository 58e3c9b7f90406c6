import type * as grpc from '@grpc/grpc-js';
import { toGrpcError } from './errors';

/**
 * Ends a server-streaming or bidi call with the status `toGrpcError(e)` maps
 * to (grpc-js turns an 'error' event on a server stream into the final status).
 */
export function endStreamWithError(call: grpc.ServerWritableStream<any, any> | grpc.ServerDuplexStream<any, any>, e: unknown): void {
  call.emit('error', toGrpcError(e));
}

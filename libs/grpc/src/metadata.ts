import * as grpc from '@grpc/grpc-js';
import { requestIdFrom } from '@llmgw/observability';

/** Metadata key that carries the request id from service to service. */
export const REQUEST_ID_KEY = 'x-request-id';

/** The caller's request id, or a fresh one when absent or malformed. */
export function requestIdOf(call: { metadata: grpc.Metadata }): string {
  const v = call.metadata.get(REQUEST_ID_KEY)[0];
  return requestIdFrom(typeof v === 'string' ? v : undefined);
}

/** Metadata carrying `requestId` (added to `md` when given). */
export function withRequestId(requestId: string, md: grpc.Metadata = new grpc.Metadata()): grpc.Metadata {
  md.set(REQUEST_ID_KEY, requestId);
  return md;
}

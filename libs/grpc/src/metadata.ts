import * as grpc from '@grpc/grpc-js';
import { extractTrace, injectTrace, requestIdFrom, type Context } from '@llmgw/observability';

/** Metadata key that carries the request id from service to service. */
export const REQUEST_ID_KEY = 'x-request-id';
/** W3C trace-context keys, carried in gRPC metadata as in HTTP headers. */
export const TRACEPARENT_KEY = 'traceparent';
export const TRACESTATE_KEY = 'tracestate';

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

/**
 * Metadata for an outgoing call: `x-request-id` when given, and the active
 * trace context as W3C `traceparent`/`tracestate` (nothing without a tracing SDK).
 */
export function outgoingMetadata(requestId?: string, md: grpc.Metadata = new grpc.Metadata()): grpc.Metadata {
  if (requestId) md.set(REQUEST_ID_KEY, requestId);
  const carrier = injectTrace({});
  for (const k in carrier) md.set(k, carrier[k]);
  return md;
}

/** The trace context a caller sent in `traceparent`, over the active one. */
export function traceContextOf(call: { metadata: grpc.Metadata }): Context {
  const tp = call.metadata.get(TRACEPARENT_KEY)[0];
  if (typeof tp !== 'string') return extractTrace({});
  const ts = call.metadata.get(TRACESTATE_KEY)[0];
  return extractTrace({ [TRACEPARENT_KEY]: tp, ...(typeof ts === 'string' ? { [TRACESTATE_KEY]: ts } : {}) });
}

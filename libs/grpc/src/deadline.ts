import type * as grpc from '@grpc/grpc-js';

/** An absolute deadline `ms` from now (unix millis as a Date, what grpc-js wants). */
export function deadlineIn(ms: number): Date {
  return new Date(Date.now() + ms);
}

/** Milliseconds left before the call's deadline; Infinity when it has none. */
export function remainingMs(call: { getDeadline(): grpc.Deadline }): number {
  const d = call.getDeadline();
  const at = d instanceof Date ? d.getTime() : d;
  return at === Infinity || !Number.isFinite(at) ? Infinity : Math.max(0, at - Date.now());
}

/**
 * Call options for an outgoing call made while serving `parent`: its
 * deadline is the parent's, capped at `maxMs` when given, so a downstream
 * call never outlives the request that caused it.
 */
export function childCallOptions(parent: { getDeadline(): grpc.Deadline } | undefined, maxMs?: number): grpc.CallOptions {
  const left = parent ? remainingMs(parent) : Infinity;
  const ms = Math.min(left, maxMs ?? Infinity);
  return ms === Infinity ? {} : { deadline: deadlineIn(ms) };
}

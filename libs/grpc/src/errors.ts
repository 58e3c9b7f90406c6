import * as grpc from '@grpc/grpc-js';
import { ERRORS, GrpcCode, LlmgwError, isLlmgwError, type ErrorCode } from '@llmgw/errors';
import { truncateForStatus } from './status-text';

/** Trailer metadata key carrying the catalogue code, so it survives the hop exactly. */
export const LLMGW_CODE_KEY = 'llmgw-code';
/** Trailer metadata key carrying LlmgwError.retryAfterSeconds. */
export const RETRY_AFTER_KEY = 'retry-after';

/** The catalogue code a bare gRPC status maps to when the peer sent no llmgw-code. */
const CODE_FOR_STATUS: Partial<Record<number, ErrorCode>> = {
  [GrpcCode.CANCELLED]: 'LLMGW_ERR_CANCELLED',
  [GrpcCode.INVALID_ARGUMENT]: 'LLMGW_ERR_INVALID_ARGUMENT',
  [GrpcCode.OUT_OF_RANGE]: 'LLMGW_ERR_INVALID_ARGUMENT',
  [GrpcCode.DEADLINE_EXCEEDED]: 'LLMGW_ERR_DEADLINE_EXCEEDED',
  [GrpcCode.NOT_FOUND]: 'LLMGW_ERR_NOT_FOUND',
  [GrpcCode.ALREADY_EXISTS]: 'LLMGW_ERR_ALREADY_EXISTS',
  [GrpcCode.PERMISSION_DENIED]: 'LLMGW_ERR_PERMISSION_DENIED',
  [GrpcCode.UNAUTHENTICATED]: 'LLMGW_ERR_AUTH_INVALID',
  [GrpcCode.FAILED_PRECONDITION]: 'LLMGW_ERR_FAILED_PRECONDITION',
  [GrpcCode.UNAVAILABLE]: 'LLMGW_ERR_UNAVAILABLE',
  [GrpcCode.RESOURCE_EXHAUSTED]: 'LLMGW_ERR_UNAVAILABLE',
};

const isCode = (v: unknown): v is ErrorCode => typeof v === 'string' && Object.prototype.hasOwnProperty.call(ERRORS, v);

/**
 * Anything thrown → a grpc-js ServiceError (a `Partial<StatusObject>` the
 * server callback accepts). An LlmgwError keeps its catalogue gRPC code and
 * message (bounded by `truncateForStatus`), and its code/retry-after travel in trailers; anything else becomes
 * INTERNAL with a fixed message, so no detail of an unexpected failure leaks.
 */
export function toGrpcError(e: unknown): grpc.ServiceError {
  const metadata = new grpc.Metadata();
  if (isLlmgwError(e)) {
    metadata.set(LLMGW_CODE_KEY, e.code);
    if (e.retryAfterSeconds !== undefined) metadata.set(RETRY_AFTER_KEY, String(e.retryAfterSeconds));
    const details = truncateForStatus(e.message);
    return Object.assign(new Error(details), { code: e.grpcCode as grpc.status, details, metadata });
  }
  metadata.set(LLMGW_CODE_KEY, 'LLMGW_ERR_INTERNAL');
  return Object.assign(new Error('internal error'), { code: grpc.status.INTERNAL, details: 'internal error', metadata });
}

/**
 * A failed call's error → LlmgwError. Uses the peer's llmgw-code trailer when
 * present, else maps the bare status (UNAVAILABLE for a peer that is down,
 * DEADLINE_EXCEEDED for a deadline, …). An LlmgwError passes through.
 */
export function fromGrpcError(err: unknown): LlmgwError {
  if (isLlmgwError(err)) return err;
  const e = err as Partial<grpc.ServiceError> | undefined;
  const status = typeof e?.code === 'number' ? e.code : GrpcCode.UNKNOWN;
  const sent = e?.metadata instanceof grpc.Metadata ? e.metadata.get(LLMGW_CODE_KEY)[0] : undefined;
  const code: ErrorCode = isCode(sent) ? sent : (CODE_FOR_STATUS[status] ?? 'LLMGW_ERR_INTERNAL');
  const ra = e?.metadata instanceof grpc.Metadata ? Number(e.metadata.get(RETRY_AFTER_KEY)[0]) : NaN;
  const message = typeof e?.details === 'string' && e.details ? e.details : String(e?.message ?? 'gRPC call failed');
  return new LlmgwError(code, message, { cause: err, ...(Number.isFinite(ra) ? { retryAfterSeconds: ra } : {}) });
}

import { ERRORS, type ErrorCode, type GrpcCodeValue } from './catalogue';

const BRAND = Symbol.for('llmgw.error');

/**
 * An error with a catalogue code. Carries optional `retryAfterSeconds` (sent
 * as Retry-After), `param` (OpenAI's `param` field) and extra HTTP
 * `headers` for the client API (e.g. OpenAI's x-ratelimit-* on a 429).
 */
export class LlmgwError extends Error {
  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly retryAfterSeconds?: number;
  readonly param?: string | null;
  readonly headers?: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { retryAfterSeconds?: number; param?: string | null; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'LlmgwError';
    this.code = code;
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.param = opts.param;
    this.headers = opts.headers;
  }

  get httpStatus(): number {
    return ERRORS[this.code].http;
  }

  get grpcCode(): GrpcCodeValue {
    return ERRORS[this.code].grpc;
  }
}

/** True for any LlmgwError, even one from another copy of this lib. */
export function isLlmgwError(e: unknown): e is LlmgwError {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}

/** OpenAI's error body. `llmgw_code` is ours; OpenAI clients ignore unknown fields. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null; llmgw_code: ErrorCode };
}

export function openAIErrorBody(code: ErrorCode, message: string, param: string | null = null): OpenAIErrorBody {
  const spec = ERRORS[code];
  return { error: { message, type: spec.type, param, code: spec.openaiCode, llmgw_code: code } };
}

/** Maps anything thrown to { status, body, headers } for the client API. */
export function toHttpError(e: unknown): { status: number; body: OpenAIErrorBody; headers: Record<string, string> } {
  const err = isLlmgwError(e) ? e : new LlmgwError('LLMGW_ERR_INTERNAL', 'internal error', { cause: e });
  const headers: Record<string, string> = { ...err.headers };
  if (err.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(err.retryAfterSeconds)));
  return { status: err.httpStatus, body: openAIErrorBody(err.code, err.message, err.param ?? null), headers };
}

/** The catalogue code for an HTTP status, for normalising upstream errors. */
export function codeForUpstreamStatus(status: number): ErrorCode {
  if (status === 400 || status === 422) return 'LLMGW_ERR_REQUEST_INVALID';
  if (status === 404) return 'LLMGW_ERR_MODEL_NOT_FOUND';
  if (status === 413) return 'LLMGW_ERR_REQUEST_TOO_LARGE';
  if (status === 429 || status === 503) return 'LLMGW_ERR_UPSTREAM_OVERLOADED';
  if (status === 504) return 'LLMGW_ERR_UPSTREAM_TIMEOUT';
  return 'LLMGW_ERR_UPSTREAM_ERROR';
}

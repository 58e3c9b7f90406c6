/**
 * The one error catalogue. Every error llmgw returns to a client, an operator
 * or another service has exactly one entry here: a stable `LLMGW_ERR_*` code,
 * the HTTP status and OpenAI error `type`/`code` used on the client API, and
 * the gRPC status code used on internal APIs. Handlers never invent statuses;
 * they look them up here (see `toOpenAIError`, `grpcCodeOf`).
 *
 * docs/errors.md is generated from this table; a spec keeps them in step.
 */

/** gRPC status codes, as numbers, so this pure lib needs no gRPC import. */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCodeValue = (typeof GrpcCode)[keyof typeof GrpcCode];

export interface ErrorSpec {
  /** HTTP status on the client API. */
  readonly http: number;
  /** gRPC status on internal APIs. */
  readonly grpc: GrpcCodeValue;
  /** OpenAI error `type`. */
  readonly type: string;
  /** OpenAI error `code` (null where OpenAI sends none). */
  readonly openaiCode: string | null;
  /** One line: what happened, for docs. */
  readonly description: string;
}

export const ERRORS = {
  // --- request shape -------------------------------------------------------
  LLMGW_ERR_REQUEST_INVALID_JSON: {
    http: 400,
    grpc: GrpcCode.INVALID_ARGUMENT,
    type: 'invalid_request_error',
    openaiCode: 'invalid_json',
    description: 'The request body is not valid JSON.',
  },
  LLMGW_ERR_REQUEST_INVALID: {
    http: 400,
    grpc: GrpcCode.INVALID_ARGUMENT,
    type: 'invalid_request_error',
    openaiCode: 'invalid_value',
    description: 'A field is missing or has the wrong type or value.',
  },
  LLMGW_ERR_REQUEST_MALFORMED: {
    http: 400,
    grpc: GrpcCode.INVALID_ARGUMENT,
    type: 'invalid_request_error',
    openaiCode: 'malformed_request',
    description: 'The HTTP request itself is malformed (request line, header syntax, content-length or chunked framing).',
  },
  LLMGW_ERR_REQUEST_HEADERS_TOO_LARGE: {
    http: 431,
    grpc: GrpcCode.INVALID_ARGUMENT,
    type: 'invalid_request_error',
    openaiCode: 'request_headers_too_large',
    description: 'The request headers exceed the server limit (16 KiB by default).',
  },
  LLMGW_ERR_REQUEST_TIMEOUT: {
    http: 408,
    grpc: GrpcCode.DEADLINE_EXCEEDED,
    type: 'invalid_request_error',
    openaiCode: 'request_timeout',
    description: 'The client did not send the whole request in time.',
  },
  LLMGW_ERR_REQUEST_TOO_LARGE: {
    http: 413,
    grpc: GrpcCode.INVALID_ARGUMENT,
    type: 'invalid_request_error',
    openaiCode: 'request_too_large',
    description: 'The request body exceeds the configured limit.',
  },
  LLMGW_ERR_CONTEXT_LENGTH_EXCEEDED: {
    http: 400,
    grpc: GrpcCode.INVALID_ARGUMENT,
    type: 'invalid_request_error',
    openaiCode: 'context_length_exceeded',
    description: "The prompt plus max_tokens exceeds the model's maximum context length.",
  },
  LLMGW_ERR_ROUTE_NOT_FOUND: {
    http: 404,
    grpc: GrpcCode.UNIMPLEMENTED,
    type: 'invalid_request_error',
    openaiCode: 'unknown_url',
    description: 'No such API path.',
  },
  LLMGW_ERR_METHOD_NOT_ALLOWED: {
    http: 405,
    grpc: GrpcCode.UNIMPLEMENTED,
    type: 'invalid_request_error',
    openaiCode: 'method_not_allowed',
    description: 'The API path does not accept this HTTP method.',
  },
  LLMGW_ERR_PROFILE_UNKNOWN: {
    http: 400,
    grpc: GrpcCode.INVALID_ARGUMENT,
    type: 'invalid_request_error',
    openaiCode: 'invalid_value',
    description: 'x-llmgw-profile names a routing profile that does not exist.',
  },
  LLMGW_ERR_BAND_UNKNOWN: {
    http: 400,
    grpc: GrpcCode.INVALID_ARGUMENT,
    type: 'invalid_request_error',
    openaiCode: 'invalid_value',
    description: 'x-llmgw-band names a priority band that does not exist.',
  },

  // --- models and endpoints -----------------------------------------------
  LLMGW_ERR_MODEL_NOT_FOUND: {
    http: 404,
    grpc: GrpcCode.NOT_FOUND,
    type: 'invalid_request_error',
    openaiCode: 'model_not_found',
    description: 'The model (or alias) is not in the catalog.',
  },
  LLMGW_ERR_MODEL_NOT_ALLOWED: {
    http: 403,
    grpc: GrpcCode.PERMISSION_DENIED,
    type: 'invalid_request_error',
    openaiCode: 'model_not_found',
    description: "The key's allowlist does not include this model.",
  },
  LLMGW_ERR_NO_ENDPOINT: {
    http: 503,
    grpc: GrpcCode.UNAVAILABLE,
    type: 'server_error',
    openaiCode: 'no_endpoint',
    description: 'No usable endpoint serves the model or any of its fallbacks.',
  },
  LLMGW_ERR_MODEL_LOADING: {
    http: 503,
    grpc: GrpcCode.UNAVAILABLE,
    type: 'server_error',
    openaiCode: 'model_loading',
    description: 'The model is being loaded on demand; retry after Retry-After.',
  },
  LLMGW_ERR_CATALOG_NOT_LOADED: {
    http: 503,
    grpc: GrpcCode.UNAVAILABLE,
    type: 'server_error',
    openaiCode: 'catalog_not_loaded',
    description:
      'The model is not known yet because the router has not read the model catalog (placement-scheduler not started, or Redis unreachable, since the router started); retry after Retry-After.',
  },

  // --- upstream -----------------------------------------------------------
  LLMGW_ERR_UPSTREAM_CONNECT: {
    http: 502,
    grpc: GrpcCode.UNAVAILABLE,
    type: 'server_error',
    openaiCode: 'upstream_connect_error',
    description: 'The engine could not be reached.',
  },
  LLMGW_ERR_UPSTREAM_ERROR: {
    http: 502,
    grpc: GrpcCode.INTERNAL,
    type: 'server_error',
    openaiCode: 'upstream_error',
    description: 'The engine answered with an error.',
  },
  LLMGW_ERR_UPSTREAM_OVERLOADED: {
    http: 503,
    grpc: GrpcCode.UNAVAILABLE,
    type: 'server_error',
    openaiCode: 'upstream_overloaded',
    description: 'The engine answered 503 or 429 and no other endpoint could take the request.',
  },
  LLMGW_ERR_UPSTREAM_TIMEOUT: {
    http: 504,
    grpc: GrpcCode.DEADLINE_EXCEEDED,
    type: 'server_error',
    openaiCode: 'upstream_timeout',
    description: 'The engine did not connect, send its first token, or finish in time.',
  },

  // --- admission ----------------------------------------------------------
  LLMGW_ERR_ADMISSION_QUEUE_FULL: {
    http: 503,
    grpc: GrpcCode.RESOURCE_EXHAUSTED,
    type: 'server_error',
    openaiCode: 'queue_full',
    description: "The band's queue is full; retry after Retry-After.",
  },
  LLMGW_ERR_ADMISSION_DISPLACED: {
    http: 503,
    grpc: GrpcCode.RESOURCE_EXHAUSTED,
    type: 'server_error',
    openaiCode: 'queue_displaced',
    description: 'The request was turned away to make room for a higher band.',
  },
  LLMGW_ERR_ADMISSION_TTL: {
    http: 504,
    grpc: GrpcCode.DEADLINE_EXCEEDED,
    type: 'server_error',
    openaiCode: 'queue_timeout',
    description: 'The request waited in the admission queue longer than queue_ttl.',
  },
  LLMGW_ERR_ADMISSION_CANCELLED: {
    http: 499,
    grpc: GrpcCode.CANCELLED,
    type: 'invalid_request_error',
    openaiCode: 'client_closed_request',
    description: 'The client went away while the request was queued.',
  },

  // --- auth, limits, budgets ----------------------------------------------
  LLMGW_ERR_AUTH_MISSING: {
    http: 401,
    grpc: GrpcCode.UNAUTHENTICATED,
    type: 'invalid_request_error',
    openaiCode: 'missing_api_key',
    description: 'No API key was presented.',
  },
  LLMGW_ERR_AUTH_INVALID: {
    http: 401,
    grpc: GrpcCode.UNAUTHENTICATED,
    type: 'invalid_request_error',
    openaiCode: 'invalid_api_key',
    description: 'The API key is unknown, revoked or expired.',
  },
  LLMGW_ERR_RATE_LIMIT_RPM: {
    http: 429,
    grpc: GrpcCode.RESOURCE_EXHAUSTED,
    type: 'requests',
    openaiCode: 'rate_limit_exceeded',
    description: 'A requests-per-minute limit on the key chain is exhausted.',
  },
  LLMGW_ERR_RATE_LIMIT_TPM: {
    http: 429,
    grpc: GrpcCode.RESOURCE_EXHAUSTED,
    type: 'tokens',
    openaiCode: 'rate_limit_exceeded',
    description: 'A tokens-per-minute limit on the key chain is exhausted.',
  },
  LLMGW_ERR_BUDGET_EXCEEDED: {
    http: 429,
    grpc: GrpcCode.RESOURCE_EXHAUSTED,
    type: 'insufficient_quota',
    openaiCode: 'insufficient_quota',
    description: 'A budget on the key chain is spent for this period.',
  },

  // --- internal / admin ---------------------------------------------------
  LLMGW_ERR_NOT_FOUND: {
    http: 404,
    grpc: GrpcCode.NOT_FOUND,
    type: 'invalid_request_error',
    openaiCode: 'not_found',
    description: 'The named object (org, team, project, key, node, …) does not exist.',
  },
  LLMGW_ERR_ALREADY_EXISTS: {
    http: 409,
    grpc: GrpcCode.ALREADY_EXISTS,
    type: 'invalid_request_error',
    openaiCode: 'already_exists',
    description: 'An object with this name already exists.',
  },
  LLMGW_ERR_INVALID_ARGUMENT: {
    http: 400,
    grpc: GrpcCode.INVALID_ARGUMENT,
    type: 'invalid_request_error',
    openaiCode: 'invalid_value',
    description: 'An admin or internal API call has a bad argument.',
  },
  LLMGW_ERR_UNAVAILABLE: {
    http: 503,
    grpc: GrpcCode.UNAVAILABLE,
    type: 'server_error',
    openaiCode: 'service_unavailable',
    description: 'A service llmgw depends on cannot be reached.',
  },
  LLMGW_ERR_PERMISSION_DENIED: {
    http: 403,
    grpc: GrpcCode.PERMISSION_DENIED,
    type: 'invalid_request_error',
    openaiCode: 'permission_denied',
    description: 'The caller is authenticated but may not do this (e.g. a node id that does not match its certificate CN).',
  },
  LLMGW_ERR_FAILED_PRECONDITION: {
    http: 409,
    grpc: GrpcCode.FAILED_PRECONDITION,
    type: 'invalid_request_error',
    openaiCode: 'failed_precondition',
    description: 'The object is not in a state that allows this operation.',
  },
  LLMGW_ERR_DEADLINE_EXCEEDED: {
    http: 504,
    grpc: GrpcCode.DEADLINE_EXCEEDED,
    type: 'server_error',
    openaiCode: 'deadline_exceeded',
    description: 'An internal call did not finish before its deadline.',
  },
  LLMGW_ERR_CANCELLED: {
    http: 499,
    grpc: GrpcCode.CANCELLED,
    type: 'invalid_request_error',
    openaiCode: 'cancelled',
    description: 'The caller cancelled an internal call before it finished.',
  },
  LLMGW_ERR_SESSION_INVALID: {
    http: 401,
    grpc: GrpcCode.UNAUTHENTICATED,
    type: 'invalid_request_error',
    openaiCode: 'session_invalid',
    description: 'A portal session is unknown, signed out, timed out, or its account is not active; or the email and password do not match.',
  },
  LLMGW_ERR_SIGNIN_RATE_LIMITED: {
    http: 429,
    grpc: GrpcCode.RESOURCE_EXHAUSTED,
    type: 'requests',
    openaiCode: 'rate_limit_exceeded',
    description: 'Too many failed sign-ins for this account or from this address; retry after the seconds given.',
  },
  LLMGW_ERR_INTERNAL: {
    http: 500,
    grpc: GrpcCode.INTERNAL,
    type: 'server_error',
    openaiCode: 'internal_error',
    description: 'An unexpected failure inside llmgw; the log has the details.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

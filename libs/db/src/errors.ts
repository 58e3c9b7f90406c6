import { LlmgwError, isLlmgwError } from '@llmgw/errors';

/**
 * Database failures as LlmgwErrors that say what is wrong
 * (docs/operations.md, "What happens when the database …"):
 * - the database cannot be reached, dropped the connection, is shutting down,
 *   refused the credentials (a password changed under a running service) or
 *   did not answer in time → UNAVAILABLE "database unavailable (…)";
 * - a unique constraint → ALREADY_EXISTS;
 * - data the database refuses (22xxx: a NUL byte, a number out of range, text
 *   that is not valid for its type) → INVALID_ARGUMENT, naming the field when
 *   the caller knows it.
 * Anything else is returned unchanged (the gRPC layer answers INTERNAL and logs it).
 * No message carries SQL, a host name or a stack.
 */
export function dbError(e: unknown, opts: { field?: string; what?: string } = {}): unknown {
  if (isLlmgwError(e)) return e;
  const reason = unavailableReason(e);
  if (reason) return new LlmgwError('LLMGW_ERR_UNAVAILABLE', `database unavailable (${reason})`, { cause: e, retryAfterSeconds: 1 });
  const code = pgCode(e);
  if (code === '23505') return new LlmgwError('LLMGW_ERR_ALREADY_EXISTS', `${opts.what ?? 'an object with this name'} already exists`, { cause: e });
  if (code?.startsWith('22')) {
    const field = opts.field ? `${opts.field}: ` : '';
    const what = INVALID_DATA[code] ?? 'a value the database cannot store';
    return new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${field}${what}`, { cause: e, param: opts.field ?? null });
  }
  return e;
}

/** Why `e` means the database is unavailable (short, for a status message), or undefined. */
export function unavailableReason(e: unknown): string | undefined {
  const err = e as { code?: unknown; message?: unknown } | undefined;
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const msg = typeof err?.message === 'string' ? err.message : '';
  if (code && NET_CODES[code]) return NET_CODES[code];
  if (code === '57P01' || code === '57P02' || code === '57P03') return 'the database is shutting down or starting';
  if (code === '57014') return 'a statement timed out';
  if (code === '53300') return 'too many connections';
  if (code === '28P01' || code === '28000') return 'the database refused the credentials';
  if (code === '3D000') return 'the database does not exist';
  if (code === '40001' || code === '40P01') return 'a conflicting transaction; retry';
  if (code?.startsWith('08')) return 'connection failure';
  if (/timeout exceeded when trying to connect|connection timeout/i.test(msg)) return 'no connection within the connect timeout';
  if (/Query read timeout/i.test(msg)) return 'no answer within the statement timeout';
  if (/Connection terminated|connection error|not queryable|Client was closed/i.test(msg)) return 'connection lost';
  if (/abandoned: deadline/i.test(msg)) return "no answer before the call's deadline";
  return undefined;
}

const NET_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection lost',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
};

const INVALID_DATA: Record<string, string> = {
  '22021': 'contains a NUL byte or invalid UTF-8',
  '22P05': 'contains a NUL byte or invalid UTF-8',
  '22003': 'a number is out of range',
  '22001': 'a value is too long',
  '22P02': 'a value has the wrong form for its type',
  '22008': 'a date or time is out of range',
  '22007': 'a date or time has the wrong form',
};

function pgCode(e: unknown): string | undefined {
  const c = (e as { code?: unknown } | undefined)?.code;
  return typeof c === 'string' && /^[0-9A-Z]{5}$/.test(c) ? c : undefined;
}

/** A unique-constraint violation (Postgres 23505, or PGlite's message). */
export function isUniqueViolation(e: unknown): boolean {
  return pgCode(e) === '23505' || /duplicate key value violates unique constraint/i.test(String((e as Error)?.message));
}

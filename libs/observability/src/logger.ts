import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { PACKAGE_VERSION } from './version';

export type { Logger };

/**
 * Field names whose values never reach a log, even at debug level: matched
 * case-insensitively wherever they appear in a logged object, down to
 * MAX_DEPTH levels (a request, its headers, a config block). Child-logger
 * bindings are not scrubbed: bind identifiers (reqId, model), never requests.
 */
export const SENSITIVE_FIELDS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'apikey',
  'api_key',
  'key',
  'secret',
  'password',
  'token',
]);
const MAX_DEPTH = 4;
const CENSOR = '[redacted]';

/**
 * Returns `obj` with every sensitive field censored. Copy-on-write: an object
 * with nothing to hide is returned as it is, so the common log line allocates
 * nothing here (path-based redaction parsed its path list on every call and
 * was the router's largest source of garbage).
 */
export function scrubSecrets<T>(obj: T, depth = 0): T {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || obj instanceof Error || depth > MAX_DEPTH) return obj;
  let out: Record<string, unknown> | undefined;
  const src = obj as Record<string, unknown>;
  for (const k in src) {
    const v = src[k];
    let nv = v;
    if (SENSITIVE_FIELDS.has(k.toLowerCase())) {
      if (v !== undefined && v !== null) nv = CENSOR;
    } else if (v !== null && typeof v === 'object') {
      nv = scrubSecrets(v, depth + 1);
    }
    if (nv !== v) {
      out ??= { ...src };
      out[k] = nv;
    }
  }
  return (out ?? obj) as T;
}

export interface LoggerConfig {
  service: string;
  /** Defaults to the llmgw package version. */
  version?: string;
  /** Which process of the service wrote the line (hostname-pid-random); omitted when absent. */
  instanceId?: string;
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  destination?: NodeJS.WritableStream | DestinationStream;
}

/**
 * The active span's trace id, for log lines. Without a registered OpenTelemetry
 * SDK there is never an active span and this returns the shared empty object.
 */
const NO_FIELDS = Object.freeze({});
function traceFields(): object {
  const sc = trace.getActiveSpan()?.spanContext();
  return sc ? { traceId: sc.traceId, spanId: sc.spanId } : NO_FIELDS;
}

/**
 * A pino logger with `service`, `version` (and `instance` when given) on every
 * line, the active trace id when there is one, and credentials redacted.
 */
export function createLogger(cfg: LoggerConfig): Logger {
  const opts: LoggerOptions = {
    level: cfg.level ?? 'info',
    base: { service: cfg.service, version: cfg.version ?? PACKAGE_VERSION, ...(cfg.instanceId ? { instance: cfg.instanceId } : {}) },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceFields,
    // pino's default merge assigns into the mixin's object; the shared empty one stays untouched.
    mixinMergeStrategy: (merge, mixin) => (mixin === NO_FIELDS ? merge : Object.assign(mixin, merge)),
    formatters: { level: (label) => ({ level: label }), log: (o) => scrubSecrets(o) },
  };
  return pino(opts, cfg.destination ?? stdoutDestination());
}

/** What stdout may hold in memory while its reader lags before lines are dropped (and counted). */
export const STDOUT_BUFFER_BYTES = 16 * 1024 * 1024;
let stdout: ReturnType<typeof pino.destination> | undefined;
let dropped = 0;

/**
 * The process's one stdout destination, shared by every logger in it (so lines
 * from services composed in one process never interleave mid-line).
 * Asynchronous: a log line never blocks the event loop. pino's default
 * synchronous stdout sleeps 100 ms in write(2)'s EAGAIN loop whenever the
 * reader of a pipe or socket (a supervisor, journald, a parent process) falls
 * behind, which stalled a busy router for seconds at a time and held every
 * new connection in the accept queue meanwhile. Lines wait in memory instead,
 * up to STDOUT_BUFFER_BYTES; past that they are dropped and counted
 * (`llmgw_log_lines_dropped_total`). pino flushes what is waiting synchronously
 * when the process exits, so only a SIGKILL loses buffered lines.
 */
function stdoutDestination(): ReturnType<typeof pino.destination> {
  stdout ??= nonBlockingDestination(1, STDOUT_BUFFER_BYTES, () => {
    dropped++;
  });
  return stdout;
}

/**
 * Lines are written in batches: each write(2) of an asynchronous destination goes through
 * libuv's thread pool (a futex to wake a thread, an eventfd write to answer), so a line per
 * request cost the router two thread hand-offs and three syscalls per request. A batch goes
 * out once it holds LOG_BATCH_BYTES, or LOG_FLUSH_MS after its first line, whichever is first
 * (docs/performance.md, "The router against a bare Node proxy").
 */
export const LOG_BATCH_BYTES = 8192;
export const LOG_FLUSH_MS = 20;

/**
 * An asynchronous pino destination on `fd` that never blocks the event loop:
 * what the reader has not taken yet waits in memory up to `maxBytes`; a line
 * past that is dropped and reported to `onDrop`. Lines are batched
 * (LOG_BATCH_BYTES, LOG_FLUSH_MS); pino writes what waits synchronously when the process exits.
 */
export function nonBlockingDestination(
  fd: number,
  maxBytes: number,
  onDrop: () => void,
  batch: { bytes?: number; flushMs?: number } = {},
): ReturnType<typeof pino.destination> {
  const dest = pino.destination({ dest: fd, sync: false, maxLength: maxBytes, minLength: batch.bytes ?? LOG_BATCH_BYTES });
  dest.on('drop', onDrop);
  const flushMs = batch.flushMs ?? LOG_FLUSH_MS;
  // sonic-boom writes a batch below minLength only when told to (flush), and not while a write is in flight.
  const waiting = dest as unknown as { _len: number; destroyed: boolean };
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    timer = undefined;
    if (waiting.destroyed || waiting._len === 0) return;
    dest.flush();
    // Until what waited is written (a write in flight, or a reader that lags), look again.
    timer = setTimeout(tick, flushMs).unref();
  };
  const write = dest.write.bind(dest);
  dest.write = (data: string): boolean => {
    const ok = write(data);
    timer ??= setTimeout(tick, flushMs).unref();
    return ok;
  };
  return dest;
}

/** Log lines dropped since start because stdout's reader fell STDOUT_BUFFER_BYTES behind. */
export function droppedLogLines(): number {
  return dropped;
}

const KEY_PATTERN = /sk-llmgw-[0-9A-Za-z]{6,}/g;

/** Masks any llmgw API key inside free text (error messages, URLs). */
export function redactSecrets(text: string): string {
  return text.replace(KEY_PATTERN, (k) => `${k.slice(0, 13)}…[redacted]`);
}

/**
 * Logs the one `"msg":"listening"` line every server role writes once it is
 * ready (supervisors and the test harness wait for it). It is written at any
 * level but "silent", so a quiet role still says where it listens.
 */
export function logListening(log: Logger, fields: Record<string, unknown>): void {
  (log.level === 'silent' ? log : log.child({}, { level: 'info' })).info(fields, 'listening');
}

/** What identifies one request in every line logged about it (and across services, via gRPC metadata). */
export interface RequestLogFields {
  reqId: string;
  keyId?: string;
  projectId?: string;
}

/** The child logger for one request: request id, and the key and project once authenticated. */
export function requestLogger(log: Logger, f: RequestLogFields): Logger {
  const b: Record<string, string> = { reqId: f.reqId };
  if (f.keyId) b.keyId = f.keyId;
  if (f.projectId) b.projectId = f.projectId;
  return log.child(b);
}

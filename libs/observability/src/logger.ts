import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths redacted on every log line: credentials must never reach a log, even
 * at debug level. Keys are matched wherever they appear in a logged request
 * or header object.
 */
export const REDACT_PATHS = [
  'authorization', 'Authorization', '*.authorization', '*.Authorization',
  'headers.authorization', 'req.headers.authorization', 'request.headers.authorization',
  'headers["x-api-key"]', '*.headers["x-api-key"]', 'apiKey', '*.apiKey', 'api_key', '*.api_key',
  'key', '*.key', 'secret', '*.secret', 'password', '*.password', 'token', '*.token',
];

export interface LoggerConfig {
  service: string;
  version?: string;
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  destination?: NodeJS.WritableStream;
}

/** A pino logger with `service` and `version` on every line and credentials redacted. */
export function createLogger(cfg: LoggerConfig): Logger {
  const opts: LoggerOptions = {
    level: cfg.level ?? 'info',
    base: { service: cfg.service, version: cfg.version ?? '0.1.0' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return cfg.destination ? pino(opts, cfg.destination as any) : pino(opts);
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

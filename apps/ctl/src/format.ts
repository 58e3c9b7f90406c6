import { parseDurationMs } from '@llmgw/config';

/** A plain text table: a header row, then rows; columns padded to fit. */
export function table(header: string[], rows: Array<Array<string | number>>): string {
  if (!rows.length) return '(none)';
  const cells = [header, ...rows.map((r) => r.map((c) => String(c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

/** Key: value lines. */
export function fields(obj: Record<string, unknown>): string {
  const w = Math.max(...Object.keys(obj).map((k) => k.length));
  return Object.entries(obj)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${(k + ':').padEnd(w + 1)} ${v}`)
    .join('\n');
}

export function time(ms: number): string {
  return ms ? new Date(ms).toISOString().replace('.000Z', 'Z') : '-';
}

/** Micro-units as units with up to 6 decimals. */
export function units(micros: number): string {
  return (micros / 1e6).toFixed(6).replace(/\.?0+$/, '');
}

export function parseUnitsToMicros(s: string): number {
  const v = Number(s);
  if (!Number.isFinite(v) || v < 0) throw usage(`"${s}" is not a non-negative number of budget units`);
  return Math.round(v * 1e6);
}

export function parseCount(s: string, what: string): number {
  if (!/^\d+$/.test(s)) throw usage(`${what} must be a non-negative integer, got "${s}"`);
  return Number(s);
}

/** "2026-12-31", an ISO time, or a duration from now ("30d", "12h"). */
export function parseExpiry(s: string, now = Date.now()): number {
  if (/^\d+(\.\d+)?(ms|s|m|h|d)$/.test(s)) return now + parseDurationMs(s);
  const t = Date.parse(s);
  if (Number.isNaN(t)) throw usage(`"${s}" is neither a date (2026-12-31) nor a duration (30d)`);
  return t;
}

/** A mistake in the command line itself (exit 2), found before any call is made. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function usage(msg: string): UsageError {
  return new UsageError(msg);
}

import type { BudgetPeriod } from './limits';

/** Start (inclusive) and end (exclusive) of the UTC budget period holding `nowMs`. */
export function periodBounds(period: BudgetPeriod, nowMs: number): { start: number; end: number } {
  const d = new Date(nowMs);
  if (period === 'day') {
    const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    return { start, end: start + 86_400_000 };
  }
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return { start, end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

/** The start of the UTC hour holding `ms` (rollup bucket). */
export function hourStart(ms: number): number {
  return Math.floor(ms / 3_600_000) * 3_600_000;
}

import type { accountingV1 } from '@llmgw/contracts';

const HOUR = 3_600_000;

/**
 * Hourly usage rows as the chart's series (JSON for a `data-series`
 * attribute): every hour of [from, to] present, empty hours as 0, times in
 * seconds as uPlot takes them.
 */
export function hourlySeries(rows: accountingV1.UsageRow__Output[], from: number, to: number): string {
  const by = new Map(rows.map((r) => [Number(r.group), r]));
  const t: number[] = [];
  const requests: number[] = [];
  const tokens: number[] = [];
  for (let h = Math.floor(from / HOUR) * HOUR; h <= to; h += HOUR) {
    const r = by.get(h);
    t.push(h / 1000);
    requests.push(r ? Number(r.requests) : 0);
    tokens.push(r ? Number(r.promptTokens) + Number(r.completionTokens) : 0);
  }
  return JSON.stringify({ t, requests, tokens, any: rows.length > 0 });
}

import type { WindowHeadroom } from '@llmgw/stores';

/** A duration as OpenAI writes its reset headers: `250ms`, `1s`, `6m0s`, `1m30.5s`. */
export function formatReset(ms: number): string {
  const t = Math.max(0, Math.round(ms));
  if (t < 1000) return `${t}ms`;
  const m = Math.floor(t / 60_000);
  const s = Math.round((t % 60_000) / 10) / 100;
  return m > 0 ? `${m}m${s}s` : `${s}s`;
}

/**
 * OpenAI's rate-limit headers for the tightest RPM and TPM windows of a key:
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`. A key without such
 * limits gets none.
 */
export function rateLimitHeaders(requests: WindowHeadroom | undefined, tokens: WindowHeadroom | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [what, h] of [
    ['requests', requests],
    ['tokens', tokens],
  ] as const) {
    if (!h) continue;
    out[`x-ratelimit-limit-${what}`] = String(h.limit);
    out[`x-ratelimit-remaining-${what}`] = String(Math.max(0, h.remaining));
    out[`x-ratelimit-reset-${what}`] = formatReset(h.resetMs);
  }
  return out;
}

/** Reconnect backoff of the agent stream. */
export interface BackoffOptions {
  /** First delay, ms. */
  initialMs: number;
  /** Upper bound of the un-jittered delay, ms. */
  maxMs: number;
  /** Growth per failed attempt. */
  multiplier: number;
  /**
   * Fraction of the delay that is random, 0..1: the delay is drawn from
   * [d·(1−jitter), d]. A fleet of agents that lost inventory at the same
   * moment must not all dial back at the same moment.
   */
  jitter: number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffOptions> = Object.freeze({ initialMs: 500, maxMs: 30_000, multiplier: 2, jitter: 0.5 });

/** After a refusal (wrong identity): only an operator fixes that, so dial back slowly. */
export const REFUSED_BACKOFF: Readonly<BackoffOptions> = Object.freeze({ initialMs: 30_000, maxMs: 300_000, multiplier: 2, jitter: 0.5 });

/**
 * The delay before reconnect attempt `attempt` (0 = the first retry):
 * min(maxMs, initialMs·multiplier^attempt), of which `jitter` is random.
 * `random` returns [0, 1) (injected so tests are exact).
 */
export function backoffDelay(attempt: number, opts: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const base = Math.min(opts.maxMs, opts.initialMs * Math.pow(opts.multiplier, Math.max(0, attempt)));
  const j = Math.min(1, Math.max(0, opts.jitter));
  return Math.round(base * (1 - j) + base * j * random());
}

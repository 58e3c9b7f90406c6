/**
 * Per-endpoint reliability state the router keeps for itself (docs/router.md, "Upstream attempts, retries, timeouts"):
 * its own inflight count, cooldown after an error, and a
 * closed → open → half-open breaker with exponential backoff.
 */
export type BreakerState = 'closed' | 'open' | 'half_open';

export interface HealthOptions {
  cooldownMs: number;
  /** Consecutive failed requests that open the breaker. */
  failureThreshold: number;
  /** Consecutive failed scrapes that open the breaker (plan: 3). */
  scrapeFailureThreshold: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  now?: () => number;
}

interface Entry {
  inflight: number;
  cooldownUntil: number;
  breaker: BreakerState;
  consecutiveFailures: number;
  /** Open periods in a row; the next open lasts base × 2^(opens-1). */
  opens: number;
  openUntil: number;
  probeInFlight: boolean;
  /** The last scrape got no answer at all (refused, reset, timed out). */
  scrapeUnreachable: boolean;
}

export class EndpointHealth {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  /** Called on every breaker transition (metrics, logs). */
  onTransition?: (id: string, from: BreakerState, to: BreakerState) => void;

  constructor(private readonly opts: HealthOptions) {
    this.now = opts.now ?? Date.now;
  }

  private entry(id: string): Entry {
    let e = this.entries.get(id);
    if (!e) {
      e = { inflight: 0, cooldownUntil: 0, breaker: 'closed', consecutiveFailures: 0, opens: 0, openUntil: 0, probeInFlight: false, scrapeUnreachable: false };
      this.entries.set(id, e);
    }
    return e;
  }

  inflight(id: string): number {
    return this.entries.get(id)?.inflight ?? 0;
  }

  breaker(id: string): BreakerState {
    const e = this.entries.get(id);
    if (!e) return 'closed';
    this.advance(id, e);
    return e.breaker;
  }

  coolingDown(id: string): boolean {
    const e = this.entries.get(id);
    return !!e && e.cooldownUntil > this.now();
  }

  /**
   * May a new request go to this endpoint now? Cooldown over, and the breaker closed, or
   * half-open with no probe out, provided the last scrape got an answer: while the scraper
   * cannot reach the endpoint at all, no client request is spent as the probe (the next
   * failed scrape re-opens the breaker; a scrape that gets an answer lets the probe through).
   */
  available(id: string): boolean {
    const e = this.entries.get(id);
    if (!e) return true;
    if (e.cooldownUntil > this.now()) return false;
    this.advance(id, e);
    if (e.breaker === 'open') return false;
    if (e.breaker === 'half_open') return !e.probeInFlight && !e.scrapeUnreachable;
    return true;
  }

  /** A request is dispatched; returns the function that ends it (idempotent). */
  begin(id: string): void {
    const e = this.entry(id);
    e.inflight++;
    this.advance(id, e);
    if (e.breaker === 'half_open') e.probeInFlight = true;
  }

  end(id: string): void {
    const e = this.entry(id);
    if (e.inflight > 0) e.inflight--;
  }

  /** The upstream answered well (2xx, or a client error that is not the endpoint's fault). */
  success(id: string): void {
    const e = this.entry(id);
    e.consecutiveFailures = 0;
    e.probeInFlight = false;
    if (e.breaker !== 'closed') {
      const from = e.breaker;
      e.breaker = 'closed';
      e.opens = 0;
      this.onTransition?.(id, from, 'closed');
    }
  }

  /** Connection error, timeout, 5xx or 429: cool down, and count toward the breaker. */
  failure(id: string): void {
    const e = this.entry(id);
    e.consecutiveFailures++;
    if (this.opts.cooldownMs > 0) e.cooldownUntil = this.now() + this.opts.cooldownMs;
    if (e.breaker === 'half_open') {
      e.probeInFlight = false;
      this.open(id, e);
    } else if (e.breaker === 'closed' && e.consecutiveFailures >= this.opts.failureThreshold) {
      this.open(id, e);
    }
  }

  /**
   * After every scrape: the scraper's consecutive-failure count for this endpoint, and whether
   * the last scrape got no answer at all (`unreachable`).
   */
  scrapeFailures(id: string, consecutive: number, unreachable = false): void {
    const known = this.entries.get(id);
    if (known) known.scrapeUnreachable = unreachable;
    else if (unreachable) this.entry(id).scrapeUnreachable = true;
    if (consecutive < this.opts.scrapeFailureThreshold) return;
    const e = this.entry(id);
    this.advance(id, e);
    // Trip once per streak: on reaching the threshold, or again if a half-open probe window arrives while scrapes still fail.
    if (e.breaker === 'closed' && consecutive === this.opts.scrapeFailureThreshold) this.open(id, e);
    else if (e.breaker === 'half_open' && !e.probeInFlight) this.open(id, e);
  }

  /** Opens a closed breaker now: a caller's own health rule tripped (a provider's error rate, docs/models.md "Providers"). */
  trip(id: string): void {
    const e = this.entry(id);
    this.advance(id, e);
    if (e.breaker === 'closed') this.open(id, e);
  }

  /** Endpoint ids with any state kept. */
  known(): string[] {
    return [...this.entries.keys()];
  }

  forget(id: string): void {
    this.entries.delete(id);
  }

  private open(id: string, e: Entry): void {
    const from = e.breaker;
    e.opens++;
    const backoff = Math.min(this.opts.maxBackoffMs, this.opts.baseBackoffMs * 2 ** (e.opens - 1));
    e.breaker = 'open';
    e.openUntil = this.now() + backoff;
    if (from !== 'open') this.onTransition?.(id, from, 'open');
  }

  private advance(id: string, e: Entry): void {
    if (e.breaker === 'open' && this.now() >= e.openUntil) {
      e.breaker = 'half_open';
      e.probeInFlight = false;
      this.onTransition?.(id, 'open', 'half_open');
    }
  }
}

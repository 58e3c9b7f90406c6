/**
 * Limit counters (docs/accounting.md#counters): RPM and TPM sliding windows and
 * per-period budgets for every scope on a key's chain, checked and reserved
 * together in one step, so N routers sharing one store allow the configured
 * limit, not N×. Windows are 60 one-second buckets per scope; a budget is one
 * integer of spent + reserved micro-units per scope and period.
 *
 * Two implementations pass one contract suite: Redis (one Lua script per
 * call) and in-process (the embedded default).
 */

/** Length of the RPM/TPM window. */
export const WINDOW_SECONDS = 60;

export interface BudgetCheck {
  /** `<type>:<id>` (see @llmgw/tenancy scopeKey). */
  scope: string;
  limitMicros: number;
  /** Unix ms bounds of the current period: [periodStart, periodEnd). */
  periodStart: number;
  periodEnd: number;
}

/** What one request asks the counters for. */
export interface ReserveRequest {
  /** Unix ms now (the caller's clock; counters bucket by the second). */
  nowMs: number;
  rpm: ReadonlyArray<{ scope: string; limit: number }>;
  tpm: ReadonlyArray<{ scope: string; limit: number }>;
  /** Tokens to reserve on every TPM scope (max_tokens + prompt estimate). */
  tokens: number;
  /** Budgets to check; empty for a free model (exempt from budgets). */
  budgets: ReadonlyArray<BudgetCheck>;
  /** Micro-units to reserve on every budget (the estimate's cost). */
  micros: number;
  /** Requests to count on every RPM scope (default 1; a counter lease takes several, docs/accounting.md#counter-leases). */
  requests?: number;
  /** The second bucket to count in (default: the second of nowMs; a lease counts in the second it ends, which may be ahead). */
  second?: number;
  /**
   * Hold the micro-units on every budget under `id` until `untilMs` instead of adding them to the
   * spent counter: a counter lease's budget part, which expires unless it is closed first
   * (docs/accounting.md#counter-leases). Budget checks count spent + live holds.
   */
  hold?: { id: string; untilMs: number };
}

/** How long a closed hold is remembered, so a request admitted from it that settles later is counted once (longer than any request runs). */
export const HOLD_TOMBSTONE_MS = 3_600_000;

/** A reservation taken; pass it back to settle or release exactly once. */
export interface CounterReservation {
  /** The second bucket the reservation was counted in. */
  second: number;
  rpmScopes: string[];
  tpmScopes: string[];
  tokens: number;
  budgets: Array<{ scope: string; periodStart: number; periodEnd: number }>;
  micros: number;
  /** Requests counted on every RPM scope (1 for a request, N for a lease). */
  requests: number;
  /**
   * The budget hold the micro-units are in (a lease, or a request admitted from one): settle and
   * release move them out of it; `adjust` on the lease closes it (docs/accounting.md#counter-leases).
   */
  hold?: string;
}

/** The reservation `req` takes in second `second` (both counter stores hand back the same). */
export function reservationOf(req: ReserveRequest, second: number): CounterReservation {
  return {
    second,
    rpmScopes: req.rpm.map((x) => x.scope),
    tpmScopes: req.tpm.map((x) => x.scope),
    tokens: req.tokens,
    budgets: req.budgets.map((b) => ({ scope: b.scope, periodStart: b.periodStart, periodEnd: b.periodEnd })),
    micros: req.micros,
    requests: req.requests ?? 1,
    ...(req.hold && req.micros > 0 && req.budgets.length ? { hold: req.hold.id } : {}),
  };
}

/** What a reserve counts in its bucket on every RPM scope, and that bucket. */
export function countedOf(req: ReserveRequest): { requests: number; second: number } {
  return { requests: req.requests ?? 1, second: req.second ?? secondOf(req.nowMs) };
}

export type LimitKind = 'rpm' | 'tpm' | 'budget';

/** What is left of the tightest window of one kind after a reservation (OpenAI's x-ratelimit-* headers). */
export interface WindowHeadroom {
  limit: number;
  /** Left in the window after this reservation (never below 0). */
  remaining: number;
  /** Until the window is full again: ms until its oldest counted second leaves it. */
  resetMs: number;
}

/** What is left of the tightest budget after a reservation (micro-units; sizes counter leases). */
export interface BudgetHeadroom {
  limit: number;
  remaining: number;
}

/** Either the whole chain was reserved, or nothing was and this is why. */
export type ReserveResult =
  | { ok: true; reservation: CounterReservation; requests?: WindowHeadroom; tokens?: WindowHeadroom; budget?: BudgetHeadroom }
  | { ok: false; kind: LimitKind; scope: string; limit: number; retryAfterMs: number };

export interface LimitCounters {
  /** Checks every limit; if all pass, reserves on every scope atomically. */
  reserve(req: ReserveRequest): Promise<ReserveResult>;
  /**
   * Replaces the reserved tokens and micro-units with the actual figures
   * (the RPM count stays). Buckets that already left the window are skipped.
   */
  settle(r: CounterReservation, actual: { tokens: number; micros: number }, nowMs: number): Promise<void>;
  /** Undoes a reservation entirely (the request never ran). */
  release(r: CounterReservation, nowMs: number): Promise<void>;
  /**
   * Adds these deltas to a reservation's bucket and budgets (a lease's unused part is returned with
   * negative ones). On a reservation with a budget hold, closes the hold instead: its unused
   * `-delta.micros` is dropped and what requests admitted from it still hold moves to the spent counter.
   */
  adjust(r: CounterReservation, delta: { requests: number; tokens: number; micros: number }, nowMs: number): Promise<void>;
  /**
   * Raises a budget's counter to at least `spentMicros` (never lowers it), so
   * seeding from the database after a restart is idempotent and safe to repeat.
   */
  seedBudget(b: { scope: string; periodStart: number; periodEnd: number }, spentMicros: number): Promise<void>;
  /** Spent + reserved micro-units of a scope in the period starting at periodStart, live holds at `nowMs` (default: now) included. */
  budgetSpent(scope: string, periodStart: number, nowMs?: number): Promise<number>;
  /** Requests and tokens counted in the window ending now. */
  windowUsage(scope: string, nowMs: number): Promise<{ requests: number; tokens: number }>;
}

/** The bucket a time falls in. */
export function secondOf(ms: number): number {
  return Math.floor(ms / 1000);
}

import {
  type CounterReservation,
  type LimitCounters,
  type ReserveRequest,
  type ReserveResult,
  type WindowHeadroom,
  type BudgetHeadroom,
  HOLD_TOMBSTONE_MS,
  WINDOW_SECONDS,
  countedOf,
  reservationOf,
  secondOf,
} from './counters';

type Window = Map<number, number>;

/** The in-process LimitCounters: the same semantics as the Redis script, for one process. */
export class MemoryLimitCounters implements LimitCounters {
  private readonly rpmWin = new Map<string, Window>();
  private readonly tpmWin = new Map<string, Window>();
  private readonly budgets = new Map<string, { v: number; expiresAt: number }>();
  /** Budget holds (counter leases) per budget counter: id → micro-units and expiry; closed ones remembered until `until`. */
  private readonly holds = new Map<string, Map<string, { micros: number; until: number }>>();
  private readonly closedHolds = new Map<string, Map<string, number>>();

  private win(m: Map<string, Window>, scope: string): Window {
    let w = m.get(scope);
    if (!w) m.set(scope, (w = new Map()));
    return w;
  }

  private sum(w: Window, now: number): { sum: number; entries: Array<[number, number]> } {
    let sum = 0;
    const entries: Array<[number, number]> = [];
    for (const [sec, v] of w) {
      if (sec <= now - WINDOW_SECONDS) w.delete(sec);
      else {
        sum += v;
        entries.push([sec, v]);
      }
    }
    return { sum, entries };
  }

  private retryAfter(entries: Array<[number, number]>, need: number, now: number, nowMs: number): number {
    entries.sort((a, b) => a[0] - b[0]);
    let freed = 0;
    for (const [sec, v] of entries) {
      freed += v;
      if (freed >= need) return (sec + WINDOW_SECONDS) * 1000 - nowMs;
    }
    return WINDOW_SECONDS * 1000;
  }

  private budgetKey(scope: string, periodStart: number): string {
    return `${scope}|${periodStart}`;
  }

  private budgetGet(key: string, nowMs: number): number {
    const b = this.budgets.get(key);
    if (!b) return 0;
    if (b.expiresAt <= nowMs) {
      this.budgets.delete(key);
      return 0;
    }
    return b.v;
  }

  private holdsOf(key: string): Map<string, { micros: number; until: number }> {
    let h = this.holds.get(key);
    if (!h) this.holds.set(key, (h = new Map()));
    return h;
  }

  /** Micro-units in holds live at nowMs (expired ones are dropped). */
  private held(key: string, nowMs: number): number {
    let sum = 0;
    const h = this.holds.get(key);
    for (const [id, x] of h ?? []) {
      if (x.until <= nowMs) h!.delete(id);
      else sum += x.micros;
    }
    return sum;
  }

  async reserve(req: ReserveRequest): Promise<ReserveResult> {
    const now = secondOf(req.nowMs);
    const { requests: n, second } = countedOf(req);
    let budget: BudgetHeadroom | undefined;
    let requests: WindowHeadroom | undefined;
    let tokens: WindowHeadroom | undefined;
    // The tightest scope of a kind; its window resets when its oldest second (this one included) leaves.
    const tighter = (h: WindowHeadroom | undefined, limit: number, left: number, entries: Array<[number, number]>): WindowHeadroom => {
      if (h && h.remaining <= left) return h;
      const oldest = Math.min(now, ...entries.map((e) => e[0]));
      return { limit, remaining: Math.max(0, left), resetMs: Math.max(0, (oldest + WINDOW_SECONDS) * 1000 - req.nowMs) };
    };
    for (const { scope, limit } of req.rpm) {
      const { sum, entries } = this.sum(this.win(this.rpmWin, scope), now);
      if (sum + n > limit) return { ok: false, kind: 'rpm', scope, limit, retryAfterMs: this.retryAfter(entries, sum + n - limit, now, req.nowMs) };
      requests = tighter(requests, limit, limit - sum - n, entries);
    }
    if (req.tokens > 0) {
      for (const { scope, limit } of req.tpm) {
        const { sum, entries } = this.sum(this.win(this.tpmWin, scope), now);
        if (sum + req.tokens > limit) {
          const retry = req.tokens > limit ? WINDOW_SECONDS * 1000 : this.retryAfter(entries, sum + req.tokens - limit, now, req.nowMs);
          return { ok: false, kind: 'tpm', scope, limit, retryAfterMs: retry };
        }
        tokens = tighter(tokens, limit, limit - sum - req.tokens, entries);
      }
    }
    if (req.micros > 0) {
      for (const b of req.budgets) {
        const key = this.budgetKey(b.scope, b.periodStart);
        const spent = this.budgetGet(key, req.nowMs) + this.held(key, req.nowMs);
        if (spent + req.micros > b.limitMicros)
          return { ok: false, kind: 'budget', scope: b.scope, limit: b.limitMicros, retryAfterMs: Math.max(1000, b.periodEnd - req.nowMs) };
        const left = b.limitMicros - spent - req.micros;
        if (!budget || left < budget.remaining) budget = { limit: b.limitMicros, remaining: left };
      }
    }
    for (const { scope } of req.rpm) this.bump(this.win(this.rpmWin, scope), second, n);
    if (req.tokens > 0) for (const { scope } of req.tpm) this.bump(this.win(this.tpmWin, scope), second, req.tokens);
    if (req.micros > 0)
      for (const b of req.budgets) {
        if (req.hold) this.holdsOf(this.budgetKey(b.scope, b.periodStart)).set(req.hold.id, { micros: req.micros, until: req.hold.untilMs });
        else this.budgetAdd(b, req.micros, req.nowMs);
      }
    return {
      ok: true,
      requests,
      tokens,
      budget,
      reservation: reservationOf(req, second),
    };
  }

  private bump(w: Window, sec: number, by: number): void {
    w.set(sec, (w.get(sec) ?? 0) + by);
  }

  private budgetAdd(b: { scope: string; periodStart: number; periodEnd: number }, by: number, nowMs: number): void {
    const key = this.budgetKey(b.scope, b.periodStart);
    const v = this.budgetGet(key, nowMs);
    this.budgets.set(key, { v: Math.max(0, v + by), expiresAt: b.periodEnd + 86_400_000 });
  }

  async settle(r: CounterReservation, actual: { tokens: number; micros: number }, nowMs: number): Promise<void> {
    this.change(r, actual.tokens - r.tokens, 0, nowMs);
    this.spend(r, actual.micros, nowMs);
  }

  async release(r: CounterReservation, nowMs: number): Promise<void> {
    this.change(r, -r.tokens, -r.requests, nowMs);
    this.spend(r, 0, nowMs);
  }

  async adjust(r: CounterReservation, d: { requests: number; tokens: number; micros: number }, nowMs: number): Promise<void> {
    this.change(r, d.tokens, d.requests, nowMs);
    if (!r.hold) {
      if (d.micros) for (const b of r.budgets) this.budgetAdd(b, d.micros, nowMs);
      return;
    }
    // Closing a hold: its unused part goes, what requests admitted from it still hold becomes spent.
    for (const b of r.budgets) {
      const key = this.budgetKey(b.scope, b.periodStart);
      const h = this.holdsOf(key).get(r.hold);
      if (!h || h.until <= nowMs) continue;
      this.holdsOf(key).delete(r.hold);
      this.budgetAdd(b, Math.max(0, h.micros + d.micros), nowMs);
      this.closedOf(key, nowMs).set(r.hold, nowMs + HOLD_TOMBSTONE_MS);
    }
  }

  private closedOf(key: string, nowMs: number): Map<string, number> {
    let c = this.closedHolds.get(key);
    if (!c) this.closedHolds.set(key, (c = new Map()));
    for (const [id, until] of c) if (until <= nowMs) c.delete(id);
    return c;
  }

  /**
   * A reservation's micro-units become `actual` spent. In a live hold: the estimate leaves the hold
   * and `actual` is spent; in a closed one the estimate was already moved to the spent counter; in an
   * expired one it went with the hold.
   */
  private spend(r: CounterReservation, actual: number, nowMs: number): void {
    for (const b of r.budgets) {
      let d = actual - r.micros;
      if (r.hold) {
        const key = this.budgetKey(b.scope, b.periodStart);
        const h = this.holdsOf(key).get(r.hold);
        if (h && h.until > nowMs) {
          h.micros = Math.max(0, h.micros - r.micros);
          d = actual;
        } else if (!this.closedOf(key, nowMs).has(r.hold)) d = actual;
      }
      if (d) this.budgetAdd(b, d, nowMs);
    }
  }

  private change(r: CounterReservation, dTokens: number, dReq: number, nowMs: number): void {
    const inWindow = r.second > secondOf(nowMs) - WINDOW_SECONDS;
    if (inWindow) {
      if (dReq) for (const s of r.rpmScopes) this.bump(this.win(this.rpmWin, s), r.second, dReq);
      if (dTokens) for (const s of r.tpmScopes) this.bump(this.win(this.tpmWin, s), r.second, dTokens);
    }
  }

  async seedBudget(b: { scope: string; periodStart: number; periodEnd: number }, spentMicros: number): Promise<void> {
    const key = this.budgetKey(b.scope, b.periodStart);
    const cur = this.budgets.get(key)?.v ?? 0;
    this.budgets.set(key, { v: Math.max(cur, spentMicros), expiresAt: b.periodEnd + 86_400_000 });
  }

  async budgetSpent(scope: string, periodStart: number, nowMs = Date.now()): Promise<number> {
    const key = this.budgetKey(scope, periodStart);
    return (this.budgets.get(key)?.v ?? 0) + this.held(key, nowMs);
  }

  async windowUsage(scope: string, nowMs: number): Promise<{ requests: number; tokens: number }> {
    const now = secondOf(nowMs);
    return { requests: this.sum(this.win(this.rpmWin, scope), now).sum, tokens: this.sum(this.win(this.tpmWin, scope), now).sum };
  }
}

import {
  type CounterReservation,
  type LimitCounters,
  type ReserveRequest,
  type ReserveResult,
  type WindowHeadroom,
  type BudgetHeadroom,
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
        const spent = this.budgetGet(this.budgetKey(b.scope, b.periodStart), req.nowMs);
        if (spent + req.micros > b.limitMicros)
          return { ok: false, kind: 'budget', scope: b.scope, limit: b.limitMicros, retryAfterMs: Math.max(1000, b.periodEnd - req.nowMs) };
        const left = b.limitMicros - spent - req.micros;
        if (!budget || left < budget.remaining) budget = { limit: b.limitMicros, remaining: left };
      }
    }
    for (const { scope } of req.rpm) this.bump(this.win(this.rpmWin, scope), second, n);
    if (req.tokens > 0) for (const { scope } of req.tpm) this.bump(this.win(this.tpmWin, scope), second, req.tokens);
    if (req.micros > 0) for (const b of req.budgets) this.budgetAdd(b, req.micros, req.nowMs);
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
    this.change(r, actual.tokens - r.tokens, actual.micros - r.micros, 0, nowMs);
  }

  async release(r: CounterReservation, nowMs: number): Promise<void> {
    this.change(r, -r.tokens, -r.micros, -r.requests, nowMs);
  }

  async adjust(r: CounterReservation, d: { requests: number; tokens: number; micros: number }, nowMs: number): Promise<void> {
    this.change(r, d.tokens, d.micros, d.requests, nowMs);
  }

  private change(r: CounterReservation, dTokens: number, dMicros: number, dReq: number, nowMs: number): void {
    const inWindow = r.second > secondOf(nowMs) - WINDOW_SECONDS;
    if (inWindow) {
      if (dReq) for (const s of r.rpmScopes) this.bump(this.win(this.rpmWin, s), r.second, dReq);
      if (dTokens) for (const s of r.tpmScopes) this.bump(this.win(this.tpmWin, s), r.second, dTokens);
    }
    if (dMicros) for (const b of r.budgets) this.budgetAdd(b, dMicros, nowMs);
  }

  async seedBudget(b: { scope: string; periodStart: number; periodEnd: number }, spentMicros: number): Promise<void> {
    const key = this.budgetKey(b.scope, b.periodStart);
    const cur = this.budgets.get(key)?.v ?? 0;
    this.budgets.set(key, { v: Math.max(cur, spentMicros), expiresAt: b.periodEnd + 86_400_000 });
  }

  async budgetSpent(scope: string, periodStart: number): Promise<number> {
    return this.budgets.get(this.budgetKey(scope, periodStart))?.v ?? 0;
  }

  async windowUsage(scope: string, nowMs: number): Promise<{ requests: number; tokens: number }> {
    const now = secondOf(nowMs);
    return { requests: this.sum(this.win(this.rpmWin, scope), now).sum, tokens: this.sum(this.win(this.tpmWin, scope), now).sum };
  }
}

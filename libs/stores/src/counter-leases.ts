import { randomUUID } from 'node:crypto';
import { type CounterReservation, type LimitCounters, type ReserveRequest, type ReserveResult, type WindowHeadroom, reservationOf, secondOf } from './counters';

/**
 * Counter leases (docs/accounting.md#counter-leases): a router takes a slice
 * of a key chain's RPM, TPM and budget allowance from the shared counters in
 * one reserve (N requests, T tokens, M micro-units, counted in the second the
 * lease ends) and admits requests against it locally, renewing it before it
 * runs out. The slice is counted in the shared counters, so what all routers
 * admit never exceeds a limit: a request admitted from a lease at time t is
 * counted in a bucket at or after t's second, so it stays in every window t
 * is in. The budget part is a hold beside the spent counter that expires
 * `holdGraceMs` after the lease ends; requests admitted from the lease settle
 * out of it. The unused part is returned when a lease is replaced, expires or
 * the router closes (closing the hold); after a crash the RPM/TPM part leaves
 * the window a minute after the lease's end and the budget hold expires
 * (docs/accounting.md#counter-leases).
 *
 * Sizing: enough for the chain's recent rate over one lease lifetime, at most
 * `fraction` of the headroom the last call saw; where that is under two
 * requests (a key near a limit) the request takes the exact per-request path.
 */
export interface LeaseOptions {
  /** Lease lifetime. */
  ttlMs: number;
  /** The most of a chain's remaining headroom one lease may take (0 < fraction ≤ 1). */
  fraction: number;
  now: () => number;
  /** How long after a lease's end its budget hold outlives it unless returned (default 60 s; well above the sweep interval). */
  holdGraceMs?: number;
}

interface Lease {
  grant: CounterReservation;
  /** Left to admit locally. */
  requests: number;
  tokens: number;
  micros: number;
  size: { requests: number; tokens: number; micros: number };
  expiresAt: number;
  headroom: { requests?: WindowHeadroom; tokens?: WindowHeadroom };
}

interface Slot {
  lease?: Lease;
  renewing?: Promise<void>;
  /** Arrivals since `since` (the chain's recent rate). */
  arrivals: number;
  since: number;
  tokensAvg: number;
  microsAvg: number;
  /** Headroom the last shared call saw (undefined = not yet known: the first request is exact). */
  room?: { requests: number; tokens: number; micros: number };
  usedAt: number;
}

export interface LeaseStats {
  /** Requests admitted from a local lease (no shared-counter call). */
  local: number;
  /** Requests that waited on a shared-counter call (a new lease or the exact path). */
  remote: number;
  grants: number;
  returns: number;
}

const hasRpm = (r: ReserveRequest) => r.rpm.length > 0;
const hasTpm = (r: ReserveRequest) => r.tpm.length > 0 && r.tokens > 0;
const hasBudget = (r: ReserveRequest) => r.budgets.length > 0 && r.micros > 0;

function signature(r: ReserveRequest): string {
  let s = '';
  for (const x of r.rpm) s += `r${x.scope}=${x.limit};`;
  for (const x of r.tpm) s += `t${x.scope}=${x.limit};`;
  for (const b of r.budgets) s += `b${b.scope}=${b.limitMicros}@${b.periodStart};`;
  return s;
}

/** LimitCounters that admit from leases on `inner` where the headroom allows, else per request. */
export class LeasedLimitCounters implements LimitCounters {
  private readonly slots = new Map<string, Slot>();
  readonly stats: LeaseStats = { local: 0, remote: 0, grants: 0, returns: 0 };
  private readonly pending = new Set<Promise<unknown>>();
  private closed = false;

  /** Whether close() was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  constructor(
    readonly inner: LimitCounters,
    private readonly o: LeaseOptions,
  ) {}

  async reserve(req: ReserveRequest): Promise<ReserveResult> {
    if (!hasRpm(req) && !hasTpm(req) && !hasBudget(req)) return { ok: true, reservation: reservationOf(req, secondOf(req.nowMs)) };
    const sig = signature(req);
    let slot = this.slots.get(sig);
    if (!slot) this.slots.set(sig, (slot = { arrivals: 0, since: req.nowMs, tokensAvg: req.tokens, microsAvg: req.micros, usedAt: req.nowMs }));
    slot.arrivals++;
    slot.tokensAvg = 0.8 * slot.tokensAvg + 0.2 * req.tokens;
    slot.microsAvg = 0.8 * slot.microsAvg + 0.2 * req.micros;
    slot.usedAt = req.nowMs;
    const local = this.fromLease(slot, req);
    if (local) return local;
    this.stats.remote++;
    // No live lease that holds enough: wait for the one being taken (or take one sized for this
    // request too); where none can be had, the exact per-request path.
    if (!slot.renewing) this.renew(slot, req);
    if (slot.renewing) {
      await slot.renewing;
      const after = this.fromLease(slot, req, false);
      if (after) return after;
    }
    // What the lease still holds goes back first (it is expired or too small for this request),
    // so a key at its limit admits exactly the limit across routers.
    if (slot.lease) {
      this.giveBack(slot.lease, req.nowMs);
      slot.lease = undefined;
    }
    return this.exact(slot, req);
  }

  private async exact(slot: Slot, req: ReserveRequest): Promise<ReserveResult> {
    const r = await this.inner.reserve(req);
    if (r.ok) this.learn(slot, r);
    return r;
  }

  private learn(slot: Slot, r: Extract<ReserveResult, { ok: true }>): void {
    slot.room = { requests: r.requests?.remaining ?? Infinity, tokens: r.tokens?.remaining ?? Infinity, micros: r.budget?.remaining ?? Infinity };
  }

  /** Admits `req` from the slot's lease when it is live and holds enough; renews ahead when it runs low. */
  private fromLease(slot: Slot, req: ReserveRequest, count = true): ReserveResult | undefined {
    const l = slot.lease;
    if (!l || req.nowMs >= l.expiresAt) return undefined;
    const tokens = hasTpm(req) ? req.tokens : 0;
    const micros = hasBudget(req) ? req.micros : 0;
    if (l.requests < 1 || l.tokens < tokens || l.micros < micros) return undefined;
    l.requests--;
    l.tokens -= tokens;
    l.micros -= micros;
    if (count) this.stats.local++;
    const low = l.requests * 2 < l.size.requests || l.tokens * 2 < l.size.tokens || l.micros * 2 < l.size.micros || l.expiresAt - req.nowMs < this.o.ttlMs / 3;
    if (low && !slot.renewing) this.renew(slot, req);
    const reservation: CounterReservation = { ...reservationOf(req, l.grant.second), requests: 1, ...(l.grant.hold ? { hold: l.grant.hold } : {}) };
    const left = (h: WindowHeadroom | undefined, mine: number) => (h ? { ...h, remaining: h.remaining + mine } : undefined);
    return { ok: true, reservation, requests: left(l.headroom.requests, l.requests), tokens: left(l.headroom.tokens, l.tokens) };
  }

  /** The lease for the chain's recent rate, within `fraction` of the headroom; undefined = take the exact path. */
  private sizeFor(slot: Slot, req: ReserveRequest): { requests: number; tokens: number; micros: number } | undefined {
    if (!slot.room) return undefined;
    const secs = Math.max(1, (req.nowMs - slot.since) / 1000);
    const want = Math.max(2, Math.ceil((slot.arrivals / secs) * (this.o.ttlMs / 1000) * 1.5));
    const cap = (room: number) => (room === Infinity ? Infinity : Math.floor(room * this.o.fraction));
    const requests = hasRpm(req) ? Math.min(want, cap(slot.room.requests)) : want;
    if (requests < 2) return undefined;
    const tokens = hasTpm(req) ? Math.min(requests * Math.max(req.tokens, Math.ceil(slot.tokensAvg)), cap(slot.room.tokens)) : 0;
    const micros = hasBudget(req) ? Math.min(requests * Math.max(req.micros, Math.ceil(slot.microsAvg)), cap(slot.room.micros)) : 0;
    if (tokens < (hasTpm(req) ? req.tokens * 2 : 0) || micros < (hasBudget(req) ? req.micros * 2 : 0)) return undefined;
    return { requests, tokens, micros };
  }

  private leaseRequest(req: ReserveRequest, size: { requests: number; tokens: number; micros: number }): ReserveRequest {
    const hold = size.micros > 0 ? { id: randomUUID(), untilMs: req.nowMs + this.o.ttlMs + (this.o.holdGraceMs ?? 60_000) } : undefined;
    return { ...req, requests: size.requests, tokens: size.tokens, micros: size.micros, second: secondOf(req.nowMs + this.o.ttlMs), hold };
  }

  private install(slot: Slot, r: Extract<ReserveResult, { ok: true }>, size: { requests: number; tokens: number; micros: number }, at: number): void {
    this.stats.grants++;
    this.learn(slot, r);
    const lease = { grant: r.reservation, ...size, size, expiresAt: at + this.o.ttlMs, headroom: { requests: r.requests, tokens: r.tokens } };
    // Granted while closing: straight back.
    if (this.closed) return this.giveBack(lease, at);
    const old = slot.lease;
    slot.lease = lease;
    slot.arrivals = 0;
    slot.since = at;
    if (old) this.giveBack(old, at);
  }

  /** Takes the slot's next lease in the background (`slot.renewing` until it is in place or refused). */
  private renew(slot: Slot, like: ReserveRequest): void {
    const req = { ...like, nowMs: this.o.now() };
    const size = this.sizeFor(slot, req);
    if (!size || this.closed) return;
    slot.renewing = this.inner
      .reserve(this.leaseRequest(req, size))
      .then((r) => {
        if (r.ok) this.install(slot, r, size, req.nowMs);
        // Refused: the headroom is smaller than the last call saw; the next request learns it exactly.
        else slot.room = undefined;
      })
      .catch(() => {})
      .finally(() => (slot.renewing = undefined));
  }

  /** Returns a lease's unused part to the shared counters (and closes its budget hold). */
  private giveBack(l: Lease, at: number): void {
    const d = { requests: -l.requests, tokens: -l.tokens, micros: -l.micros };
    l.requests = l.tokens = l.micros = 0;
    if (!d.requests && !d.tokens && !d.micros && !l.grant.hold) return;
    this.stats.returns++;
    const p = this.inner.adjust(l.grant, d, at).catch(() => {});
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Returns what expired leases left unused and forgets chains idle for a minute (call periodically). */
  sweep(at = this.o.now()): void {
    for (const [sig, slot] of this.slots) {
      if (slot.lease && at >= slot.lease.expiresAt) {
        this.giveBack(slot.lease, at);
        slot.lease = undefined;
      }
      if (!slot.lease && !slot.renewing && at - slot.usedAt > 60_000) this.slots.delete(sig);
    }
  }

  /** Returns every lease's unused part (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots.values()].map((s) => s.renewing));
    const at = this.o.now();
    for (const slot of this.slots.values()) if (slot.lease) this.giveBack(slot.lease, at);
    this.slots.clear();
    await Promise.all([...this.pending]);
  }

  settle(r: CounterReservation, actual: { tokens: number; micros: number }, nowMs: number): Promise<void> {
    return this.inner.settle(r, actual, nowMs);
  }
  release(r: CounterReservation, nowMs: number): Promise<void> {
    return this.inner.release(r, nowMs);
  }
  adjust(r: CounterReservation, d: { requests: number; tokens: number; micros: number }, nowMs: number): Promise<void> {
    return this.inner.adjust(r, d, nowMs);
  }
  seedBudget(b: { scope: string; periodStart: number; periodEnd: number }, spentMicros: number): Promise<void> {
    return this.inner.seedBudget(b, spentMicros);
  }
  budgetSpent(scope: string, periodStart: number, nowMs?: number): Promise<number> {
    return this.inner.budgetSpent(scope, periodStart, nowMs);
  }
  windowUsage(scope: string, nowMs: number): Promise<{ requests: number; tokens: number }> {
    return this.inner.windowUsage(scope, nowMs);
  }
}

import type { admissionV1 } from '@llmgw/contracts';

/** The renewal call: the service's answer to a router's uses (the `Credit` RPC). */
export type RenewCredits = (uses: admissionV1.CreditUse__Output[]) => Promise<admissionV1.CreditResponse__Output>;

interface Entry {
  model: string;
  pool: string;
  limit: number;
  inUse: number;
  /** Local monotonic ms after which the credit may not be used. */
  usableUntil: number;
  /** Last time a request wanted this pool; entries idle for long are not renewed. */
  lastWanted: number;
}

export interface CreditBookOptions {
  renew: RenewCredits;
  /** How often to renew, ms (well under the service's credit TTL). */
  intervalMs: number;
  /**
   * Soonest a renewal follows the previous one when the credit runs low
   * (three quarters in use, or used up), ms; default a quarter of `intervalMs`.
   */
  soonMs?: number;
  now?: () => number;
  log?: { debug(o: object, m: string): void; warn(o: object, m: string): void };
}

/**
 * A router's credits (issue 13): per (model, pool), how many requests it may
 * admit on its own, without a round trip to the admission service. Renewed in
 * the background; a credit is usable only until half its TTL has passed
 * without a renewal (the service keeps it reserved for the whole TTL), and is
 * revoked at once when a renewal fails or comes from a new leader (another
 * fencing token). Requests admitted on credit are reported as `inUse` on each
 * renewal, so a new leader adopts them. When three quarters of a credit are in
 * use (or it is used up) the next renewal comes sooner (`soonMs` after the
 * previous one), so the service, which sizes the credit from the router's
 * demand, can grow it before the use reaches it.
 */
export class CreditBook {
  private readonly entries = new Map<string, Entry>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires (local monotonic ms). */
  private timerAt = Number.POSITIVE_INFINITY;
  /** When the last renewal was sent; a renewal asked for while one runs follows it. */
  private lastSent = Number.NEGATIVE_INFINITY;
  private again = false;
  private fencing: number | undefined;
  private closed = false;
  private renewing = false;
  private readonly now: () => number;

  constructor(private readonly o: CreditBookOptions) {
    this.now = o.now ?? (() => performance.now());
  }

  start(): void {
    this.schedule(0);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /**
   * Takes one unit of credit for (model, pool); false when there is none
   * (none granted, all in use, or expired). Each true must be matched by one
   * `put`.
   */
  take(model: string, pool: string): boolean {
    const k = `${model}\u0000${pool}`;
    let e = this.entries.get(k);
    const now = this.now();
    if (!e) {
      // First sight of this pool: ask for a credit in the next renewal.
      e = { model, pool, limit: 0, inUse: 0, usableUntil: 0, lastWanted: now };
      this.entries.set(k, e);
      this.schedule(0);
      return false;
    }
    e.lastWanted = now;
    if (e.inUse >= e.limit || now > e.usableUntil) {
      if (e.limit > 0) this.soon();
      return false;
    }
    e.inUse++;
    if (4 * e.inUse >= 3 * e.limit) this.soon();
    return true;
  }

  /** Renews sooner: `soonMs` after the last renewal was sent (after the running one ends, if one runs). */
  private soon(): void {
    if (this.renewing) {
      this.again = true;
      return;
    }
    const soonMs = this.o.soonMs ?? this.o.intervalMs / 4;
    this.schedule(Math.max(0, this.lastSent + soonMs - this.now()));
  }

  put(model: string, pool: string): void {
    const e = this.entries.get(`${model}\u0000${pool}`);
    if (e && e.inUse > 0) e.inUse--;
  }

  /** Revokes every credit now (the service is unreachable or another instance leads). */
  revoke(): void {
    for (const e of this.entries.values()) {
      e.limit = 0;
      e.usableUntil = 0;
    }
  }

  /** For tests and /metrics: the current limit and use of a pool. */
  state(model: string, pool: string): { limit: number; inUse: number; usable: boolean } | undefined {
    const e = this.entries.get(`${model}\u0000${pool}`);
    return e && { limit: e.limit, inUse: e.inUse, usable: this.now() <= e.usableUntil };
  }

  /** One renewal round (also run by the timer). */
  async renewNow(): Promise<void> {
    if (this.renewing || this.closed) return;
    this.renewing = true;
    const now = this.now();
    // Pools nobody asked for in a minute and with nothing in use are forgotten.
    for (const [k, e] of this.entries) if (e.inUse === 0 && now - e.lastWanted > 60_000) this.entries.delete(k);
    const uses = [...this.entries.values()].map((e) => ({ model: e.model, pool: e.pool, inUse: e.inUse }));
    try {
      if (uses.length === 0) return;
      const sent = this.now();
      this.lastSent = sent;
      const r = await this.o.renew(uses);
      if (this.fencing !== undefined && r.fencingToken !== this.fencing) {
        this.o.log?.warn({ from: this.fencing, to: r.fencingToken }, 'admission leader changed; credits renewed from the new leader');
      }
      this.fencing = r.fencingToken;
      const byKey = new Map(r.grants.map((g) => [`${g.model}\u0000${g.pool}`, g.limit]));
      for (const [k, e] of this.entries) {
        e.limit = byKey.get(k) ?? 0;
        // Usable for half the TTL from when the renewal was sent: the service holds it for the whole TTL.
        e.usableUntil = e.limit > 0 ? sent + r.ttlMs / 2 : 0;
      }
    } catch (err) {
      this.revoke();
      this.o.log?.debug({ err: (err as Error).message }, 'credit renewal failed; credits revoked');
    } finally {
      this.renewing = false;
      const again = this.again;
      this.again = false;
      this.schedule(this.o.intervalMs);
      if (again) this.soon();
    }
  }

  /** Arms the timer to fire in `ms`, unless it is armed to fire sooner already. */
  private schedule(ms: number): void {
    if (this.closed) return;
    const at = this.now() + ms;
    if (this.timer) {
      if (this.timerAt <= at) return;
      clearTimeout(this.timer);
    }
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      void this.renewNow();
    }, ms);
    this.timer.unref?.();
  }
}

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
 * renewal, so a new leader adopts them.
 */
export class CreditBook {
  private readonly entries = new Map<string, Entry>();
  private timer: ReturnType<typeof setTimeout> | undefined;
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
    if (e.inUse >= e.limit || now > e.usableUntil) return false;
    e.inUse++;
    return true;
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
      this.schedule(this.o.intervalMs);
    }
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer && ms > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.renewNow();
    }, ms);
    this.timer.unref?.();
  }
}

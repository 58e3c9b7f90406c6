import type { AdmissionController } from '@llmgw/admission-core';
import type { admissionV1 } from '@llmgw/contracts';

/**
 * How large a router's credit should be, from its demand (docs/admission.md,
 * "Credits: no round trip when there is nothing to decide"). The answer is
 * only the cap passed to the controller's `credit`: the controller still
 * bounds it by half the lowest band's headroom and reserves it as
 * outstanding leases, so the global bound does not depend on this sizing.
 */

/** What the service knows of one router's demand in one (model, pool) at a renewal. */
export interface CreditDemand {
  /** Requests the router admitted on credit and has not finished (it reports this). */
  inUse: number;
  /** Its `Acquire` leases outstanding whose first candidate pool is this one. */
  exact: number;
  /** `Acquire` calls granted to it for this pool since its previous renewal: it ran out of credit. */
  spilled: number;
}

export interface CreditSizerOptions {
  /** The largest credit (`credit_max`); 0 = no credits. */
  max: number;
  /**
   * Credit of a router with little or no demand (default 256, the fixed credit
   * before sizing; never above `max`).
   */
  floor?: number;
  /** How fast a past peak of demand is forgotten, ms (default 2000). */
  halfLifeMs?: number;
  now?: () => number;
}

interface Sized {
  /** Decayed peak of the demand estimate. */
  peak: number;
  /** In flight (inUse + exact) at the previous renewal. */
  last: number;
  /** The limit the controller granted at the previous renewal. */
  limit: number;
  at: number;
}

const key = (routerId: string, model: string, pool: string) => `${routerId}\u0000${model}\u0000${pool}`;

/** One router's `Acquire` demand per `model \0 pool` (its first candidate pool). */
interface RouterDemand {
  exact: Map<string, number>;
  spilled: Map<string, number>;
}

/**
 * Per (router, model, pool): `want = min(max, max(floor, 2 × peak))`, where
 * `peak` is the largest recent estimate of what the router needs in flight,
 * decaying by half every `halfLifeMs`. The estimate of one renewal is
 *
 * - its requests in flight in the pool (on credit and by `Acquire`): by
 *   Little's law its admission rate × latency, observed rather than computed;
 * - plus their growth since the previous renewal (a step keeps growing for
 *   another interval, so the credit grows before the use reaches it);
 * - at least the previous limit plus the `Acquire` calls made since, when it
 *   made any: it ran out of credit, so it needed more than it had.
 *
 * The factor 2 is the pre-sizing: a credit is at least twice what the router
 * used, so a step of up to 2× between two renewals is served on credit.
 */
export class CreditSizer {
  private readonly sized = new Map<string, Sized>();
  private readonly demand = new Map<string, RouterDemand>();
  /** Lease id → [router, `model \0 pool`] for the Acquire leases counted in `exact`. */
  private readonly leases = new Map<string, [string, string]>();
  private readonly now: () => number;
  private readonly floor: number;
  private readonly halfLifeMs: number;

  constructor(private readonly o: CreditSizerOptions) {
    this.now = o.now ?? Date.now;
    this.floor = Math.min(o.max, o.floor ?? 256);
    this.halfLifeMs = o.halfLifeMs ?? 2000;
  }

  /**
   * One router's renewal: each use's credit, sized here and bounded by the
   * controller (which reserves it as outstanding leases for `ttlMs`).
   */
  renew(ctl: AdmissionController, routerId: string, uses: readonly admissionV1.CreditUse__Output[], ttlMs: number): admissionV1.CreditGrant__Output[] {
    const d = this.demand.get(routerId);
    return uses.map((u) => {
      const k = `${u.model}\u0000${u.pool}`;
      const want = this.want(routerId, u.model, u.pool, { inUse: u.inUse, exact: d?.exact.get(k) ?? 0, spilled: d?.spilled.get(k) ?? 0 });
      d?.spilled.delete(k);
      const { limit } = ctl.credit(routerId, u.model, u.pool, u.inUse, ttlMs, want);
      this.granted(routerId, u.model, u.pool, limit);
      return { model: u.model, pool: u.pool, limit };
    });
  }

  /** An `Acquire` lease granted to a router whose first candidate pool was `pool`: demand its credit did not cover. */
  acquired(routerId: string, leaseId: string, model: string, pool: string): void {
    const k = `${model}\u0000${pool}`;
    let d = this.demand.get(routerId);
    if (!d) this.demand.set(routerId, (d = { exact: new Map(), spilled: new Map() }));
    this.leases.set(leaseId, [routerId, k]);
    d.exact.set(k, (d.exact.get(k) ?? 0) + 1);
    d.spilled.set(k, (d.spilled.get(k) ?? 0) + 1);
  }

  /** That lease ended (released, reconciled or swept). */
  released(leaseId: string): void {
    const l = this.leases.get(leaseId);
    if (!l) return;
    this.leases.delete(leaseId);
    const d = this.demand.get(l[0]);
    const n = d?.exact.get(l[1]) ?? 0;
    if (n > 1) d!.exact.set(l[1], n - 1);
    else d?.exact.delete(l[1]);
  }

  /** The credit to ask the controller for (its cap) for this renewal. */
  want(routerId: string, model: string, pool: string, d: CreditDemand): number {
    if (this.o.max <= 0) return 0;
    const now = this.now();
    const s = this.sized.get(key(routerId, model, pool));
    const inFlight = Math.max(0, d.inUse) + Math.max(0, d.exact);
    let need = inFlight + Math.max(0, inFlight - (s?.last ?? 0));
    if (d.spilled > 0) need = Math.max(need, (s?.limit ?? 0) + d.spilled);
    const decayed = s ? s.peak * 2 ** (-(now - s.at) / this.halfLifeMs) : 0;
    const peak = Math.max(need, decayed);
    this.sized.set(key(routerId, model, pool), { peak, last: inFlight, limit: s?.limit ?? 0, at: now });
    return Math.min(this.o.max, Math.max(this.floor, Math.ceil(2 * peak)));
  }

  /** Records what the controller granted (the next renewal's "previous limit"). */
  granted(routerId: string, model: string, pool: string, limit: number): void {
    const s = this.sized.get(key(routerId, model, pool));
    if (s) s.limit = limit;
  }

  /** Forgets a router (it went silent; its leases are released with it). */
  forget(routerId: string): void {
    for (const k of this.sized.keys()) if (k.startsWith(`${routerId}\u0000`)) this.sized.delete(k);
    for (const [id, l] of this.leases) if (l[0] === routerId) this.leases.delete(id);
    this.demand.delete(routerId);
  }

  clear(): void {
    this.sized.clear();
    this.leases.clear();
    this.demand.clear();
  }
}

import { systemClock, type Clock } from './clock';
import { validateAdmissionConfig, type AdmissionCoreConfig, type BandConfig } from './config';
import { noopRecorder, type AdmissionRecorder } from './recorder';
import { bandVerdict, poolSaturationParts, type BandVerdict, type SaturationParts } from './saturation';
import { SlotLearner, type SlotLearnerOptions } from './slots';
import type { AcquireResult, Admission, AdmissionRequest, Lease, LeaseOutcome, RejectReason, ReplicaLoad, SaturationThresholds } from './types';

/** Scraped state of one replica, as fed to `updatePool`. */
export interface ReplicaStats {
  /** Stable replica id (endpoint id); keys the learned batch capacity. */
  id: string;
  waiting: number;
  running: number;
  kvUsage?: number;
  /**
   * Requests dispatched to the replica that did not go through this
   * controller (rare; 0 when every request holds a lease here). Leases are
   * added on top, spread across the pool's replicas.
   */
  inflight?: number;
  /**
   * Batch slots the engine was started with (`--max-num-seqs`), when the
   * endpoint declares it: the replica's capacity, confirmed from the start
   * (otherwise it is learned from the engine's metrics: see `SlotLearner`).
   */
  declaredCapacity?: number;
  /** The replica's own target waiting (endpoint record `target_waiting`, docs/capacity.md); absent: the pool's. */
  targetWaiting?: number;
  /**
   * When these numbers were scraped (unix ms). A pool is fed on every scrape
   * of any of its replicas; with it, the slot learner counts each scrape of
   * a replica once. Without it every feed counts as a new scrape.
   */
  sampledAt?: number;
}

/** Where lease decisions are explained (a pino logger fits). */
export interface DecisionLog {
  debug(obj: object, msg: string): void;
  /** When present and false for 'debug', decisions are not even formatted. */
  isLevelEnabled?(level: string): boolean;
}

export interface AdmissionControllerDeps {
  clock?: Clock;
  recorder?: AdmissionRecorder;
  /** One debug line per lease decision: band, pool, saturation parts, ceiling, rule. */
  log?: DecisionLog;
  /** Lease ids; defaults to a random prefix plus a counter. */
  newLeaseId?: () => string;
  /** Window and confirmations of the slot learner (undeclared endpoints). */
  slotLearning?: SlotLearnerOptions;
}

/** What admission knows about one replica's batch slots (`replicaSlots()`). */
export interface ReplicaSlots {
  pool: string;
  model: string;
  id: string;
  /** The endpoint's declared `max_num_seqs`, when it has one (it wins). */
  declared?: number;
  /** Learned from the engine's metrics; undefined until learned. */
  learned?: number;
  /** The capacity the saturation detector uses now. */
  capacity: number;
  /** Whether that capacity counts in the slot component (declared, learned, or from its peers). */
  confirmed: boolean;
  /** The capacity is its pool peers' until its own metrics show it. */
  fromPeers?: boolean;
}

/** A snapshot for health pages, `ctl top` and tests. */
export interface AdmissionSnapshot {
  queued: Record<string, number>;
  outstanding: Record<string, number>;
  saturation: Record<string, number>;
}

/** Per replica: the declared slots, or the learner for an endpoint that declares none. */
interface SlotState {
  declared?: number;
  learner: SlotLearner;
  lastSampleAt?: number;
}

/**
 * Batch capacity used by the detector, and whether it is confirmed: declared,
 * learned from the replica's own metrics, or — until those show it — taken
 * from the replica's peers (`peer`: the smallest confirmed capacity among the
 * pool's other replicas of the model, which run the same engine as a rule),
 * never below what the replica has been seen running.
 */
function capacityOf(h: SlotState | undefined, running: number, peer?: number): { capacity: number; confirmed: boolean; fromPeers?: boolean } {
  if (!h) return peer !== undefined ? { capacity: Math.max(peer, running), confirmed: true, fromPeers: true } : { capacity: running, confirmed: false };
  if (h.declared !== undefined) return { capacity: h.declared, confirmed: true };
  const learned = h.learner.learned;
  if (learned !== undefined) return { capacity: learned, confirmed: true };
  if (peer !== undefined) return { capacity: Math.max(peer, h.learner.hwm), confirmed: true, fromPeers: true };
  return { capacity: h.learner.capacity(), confirmed: false };
}

/** Smallest declared or learned capacity among a pool's replicas; undefined when none has one. */
function peerCapacity(st: { replicas: ReplicaStats[]; slots: Map<string, SlotState> }): number | undefined {
  let min: number | undefined;
  for (const r of st.replicas) {
    const h = st.slots.get(r.id);
    const c = h?.declared ?? h?.learner.learned;
    if (c !== undefined) min = min === undefined ? c : Math.min(min, c);
  }
  return min;
}

/** Scraped running/waiting less the releases seen since that scrape, spread over the replicas. */
function afterReleases(r: ReplicaStats, released: number): { running: number; waiting: number } {
  const fromRunning = Math.min(r.running, released);
  return { running: r.running - fromRunning, waiting: Math.max(0, r.waiting - (released - fromRunning)) };
}

const poolKey = (model: string, pool: string) => `${model}\u0000${pool}`;

interface Waiter {
  req: AdmissionRequest;
  band: BandState;
  flow: Flow;
  seq: number;
  enqueuedAt: number;
  deadline: number;
  resolve: (r: AcquireResult) => void;
  cleanup: () => void;
}

/** One tenant's FIFO inside a band. */
interface Flow {
  tenant: string;
  queue: Waiter[];
  /** Virtual counter: turns (round-robin) or tokens (token-weighted) consumed. */
  vt: number;
  lastServed: number;
}

interface BandState {
  cfg: BandConfig;
  capacity: number;
  flows: Map<string, Flow>;
  size: number;
  /** Smoothed wait of granted requests, for Retry-After. */
  ewmaWaitMs: number;
}

interface PoolState {
  pool: string;
  /** '' for a model-agnostic pool feed. */
  model: string;
  replicas: ReplicaStats[];
  /** Per replica: declared slots or the slot learner. */
  slots: Map<string, SlotState>;
  thresholds: SaturationThresholds;
  outstanding: number;
  /** Outstanding leases per band name (adopted ones, whose band is unknown, under ''). */
  byBand: Map<string, number>;
  /** Leases released since the last scrape was fed: that scrape still shows them running. */
  releasedSinceFeed: number;
  /** Slots reserved by router credits: Σ max(limit, in use) over the credits in this pool. */
  creditReserved: number;
}

/** A router's credit in one pool (see `credit`). */
interface CreditState {
  st: PoolState;
  limit: number;
  inUse: number;
  expiresAt: number;
}

/** What `credit` answers. */
export interface CreditGrant {
  /** Requests the router may have admitted on its own at once in this pool (0 = ask for each one). */
  limit: number;
  /** Unix ms after which the router must not use the credit without a renewal. */
  expiresAt: number;
}

interface LeaseState {
  state: PoolState;
  band: string;
  released: boolean;
  adopted?: boolean;
}

/**
 * The in-process admission controller (docs/admission.md): band queues per pool, the
 * saturation detector with both lags closed, tenant fairness, TTL, capacity,
 * displacement and pool spillover. Used by the admission service and by the
 * router's fallback.
 *
 * Dispatch is event driven: it runs on a new request, a release, a stats
 * update and the TTL timer (one timer for the earliest deadline) — nothing
 * polls.
 */
export class AdmissionController implements Admission {
  private readonly clock: Clock;
  private readonly rec: AdmissionRecorder;
  private readonly newLeaseId: () => string;
  private readonly bands: BandState[];
  private readonly bandByName = new Map<string, BandState>();
  private readonly pools = new Map<string, PoolState>();
  private readonly leases = new Map<string, LeaseState>();
  private totalQueued = 0;
  private seq = 0;
  private timer: unknown;
  private timerAt = Number.POSITIVE_INFINITY;
  private dispatching = false;
  private dispatchAgain = false;
  private closed = false;
  /** Prefix of the ids this controller hands out; an id with it is never adopted. */
  private readonly ownPrefix: string | undefined;
  private readonly log: DecisionLog | undefined;
  private readonly headroom: number;
  /** Adopted ids already released, so a KeepAlive racing a Release cannot resurrect one. */
  private readonly releasedAdopted = new Set<string>();
  /** Router credits by `routerId \0 model \0 pool`. */
  private readonly credits = new Map<string, CreditState>();
  private creditTimer: unknown;
  private creditTimerAt = Number.POSITIVE_INFINITY;
  private readonly slotLearning: SlotLearnerOptions | undefined;

  constructor(
    readonly config: AdmissionCoreConfig,
    deps: AdmissionControllerDeps = {},
  ) {
    validateAdmissionConfig(config);
    this.clock = deps.clock ?? systemClock;
    this.rec = deps.recorder ?? noopRecorder;
    this.log = deps.log;
    this.headroom = config.slotHeadroomPerReplica ?? 1;
    this.slotLearning = deps.slotLearning;
    const prefix = Math.random().toString(36).slice(2, 10);
    let n = 0;
    this.ownPrefix = deps.newLeaseId ? undefined : `${prefix}-`;
    this.newLeaseId = deps.newLeaseId ?? (() => `${prefix}-${++n}`);
    this.bands = [...config.bands]
      .sort((a, b) => b.priority - a.priority)
      .map((cfg) => ({ cfg, capacity: cfg.queueCapacity ?? config.queueCapacityPerBand, flows: new Map(), size: 0, ewmaWaitMs: 0 }));
    for (const b of this.bands) this.bandByName.set(b.cfg.name, b);
  }

  /** Band names, highest priority first. */
  bandNames(): string[] {
    return this.bands.map((b) => b.cfg.name);
  }

  /** Resolves an unknown band to the lowest one: inventing a band name never buys priority. */
  resolveBand(name: string): string {
    return (this.bandByName.get(name) ?? this.bands[this.bands.length - 1]).cfg.name;
  }

  acquire(req: AdmissionRequest, signal?: AbortSignal): Promise<AcquireResult> {
    const now = this.clock.now();
    const band = this.bandByName.get(req.band) ?? this.bands[this.bands.length - 1];
    if (this.closed) return Promise.resolve(this.reject(band, 'full', 0, 'admission is shutting down'));
    if (signal?.aborted) return Promise.resolve(this.reject(band, 'client_gone', 0, 'the client went away'));
    if (req.candidatePools.length === 0) {
      return Promise.resolve(this.reject(band, 'full', 0, 'no candidate pool for the model'));
    }

    // Fast path: nothing of this band is waiting, so granting now cannot jump a queue.
    if (band.size === 0) {
      const pool = this.pickPool(band, req, true);
      if (pool !== undefined) return Promise.resolve(this.grant(band, req, pool, now));
    }

    if (band.size >= band.capacity) {
      return Promise.resolve(this.reject(band, 'full', 0, `the ${band.cfg.name} queue is full`));
    }
    if (this.config.totalQueueCapacity !== undefined && this.totalQueued >= this.config.totalQueueCapacity) {
      const victim = this.newestBelow(band);
      if (!victim) return Promise.resolve(this.reject(band, 'full', 0, 'the admission queue is full'));
      this.remove(victim);
      victim.resolve(this.reject(victim.band, 'displaced', now - victim.enqueuedAt, `displaced by a ${band.cfg.name} request`));
    }

    return new Promise<AcquireResult>((resolve) => {
      let flow = band.flows.get(req.tenant);
      if (!flow) {
        // A tenant (re)joining starts level with the least-served active tenant: idle time banks no credit.
        let floor = Number.POSITIVE_INFINITY;
        for (const f of band.flows.values()) floor = Math.min(floor, f.vt);
        flow = { tenant: req.tenant, queue: [], vt: Number.isFinite(floor) ? floor : 0, lastServed: -1 };
        band.flows.set(req.tenant, flow);
      }
      const ttlAt = now + this.config.queueTtlMs;
      const w: Waiter = {
        req,
        band,
        flow,
        seq: ++this.seq,
        enqueuedAt: now,
        deadline: req.deadlineMs !== undefined ? Math.min(req.deadlineMs, ttlAt) : ttlAt,
        resolve,
        cleanup: () => undefined,
      };
      if (signal) {
        const onAbort = () => {
          if (!this.remove(w)) return;
          resolve(this.reject(band, 'client_gone', this.clock.now() - w.enqueuedAt, 'the client went away'));
          this.dispatch();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        w.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      flow.queue.push(w);
      band.size++;
      this.totalQueued++;
      this.rec.queueDepth(band.cfg.name, req.model, this.depthOf(band, req.model));
      this.armTimer(w.deadline);
      this.dispatch();
    });
  }

  /**
   * Replaces the scraped state of `model`'s replicas in `pool` and runs the
   * dispatch loop. Without a model the state applies to every model's
   * requests for that pool (a pool serving one model).
   */
  updatePool(pool: string, replicas: ReplicaStats[], model = ''): void {
    const st = this.poolState(pool, model);
    const seen = new Set<string>();
    for (const r of replicas) {
      seen.add(r.id);
      let h = st.slots.get(r.id);
      if (!h) st.slots.set(r.id, (h = { learner: new SlotLearner(this.slotLearning) }));
      // A declared capacity is the engine's own flag and wins; without one the slots are learned
      // from the engine's metrics (the running count while requests wait), once per scrape.
      h.declared = r.declaredCapacity !== undefined && r.declaredCapacity >= 1 ? Math.floor(r.declaredCapacity) : undefined;
      if (h.declared === undefined && (r.sampledAt === undefined || r.sampledAt !== h.lastSampleAt)) {
        h.lastSampleAt = r.sampledAt;
        h.learner.observe(r);
      }
    }
    for (const id of [...st.slots.keys()]) if (!seen.has(id)) st.slots.delete(id);
    st.replicas = replicas.map((r) => ({ ...r }));
    st.releasedSinceFeed = 0;
    this.recordSaturation(st);
    this.dispatch();
  }

  /** Forgets a pool (its replicas are gone); its outstanding leases still release normally. */
  removePool(pool: string, model = ''): void {
    const st = this.pools.get(poolKey(model, pool));
    if (st) {
      st.replicas = [];
      st.slots.clear();
    }
  }

  /** Releases a lease by id; false when unknown or already released. */
  release(leaseId: string, _outcome?: LeaseOutcome): boolean {
    const l = this.leases.get(leaseId);
    if (!l || l.released) return false;
    l.released = true;
    this.leases.delete(leaseId);
    if (l.adopted) {
      this.releasedAdopted.add(leaseId);
      if (this.releasedAdopted.size > 100_000) this.releasedAdopted.delete(this.releasedAdopted.values().next().value as string);
    }
    l.state.outstanding = Math.max(0, l.state.outstanding - 1);
    this.countBand(l.state, l.band, -1);
    if (!l.adopted) l.state.releasedSinceFeed++;
    this.recordSaturation(l.state);
    this.dispatch();
    return true;
  }

  /** Current saturation of a pool for a model, counting outstanding leases as inflight. */
  saturation(pool: string, model = ''): number {
    const st = this.lookup(model, pool);
    return st ? this.sat(st, 0) : Number.POSITIVE_INFINITY;
  }

  /** The components of a pool's saturation now (slots, queue, kv), counting outstanding leases. */
  saturationParts(pool: string, model = ''): SaturationParts | undefined {
    const st = this.lookup(model, pool);
    return st ? this.parts(st, 0) : undefined;
  }

  /**
   * Counts a lease granted elsewhere (a previous leader) as outstanding, so a
   * failover does not forget load already dispatched. False when known.
   */
  adopt(leaseId: string, pool: string, model = ''): boolean {
    if (this.leases.has(leaseId) || this.releasedAdopted.has(leaseId)) return false;
    // One of ours that is not outstanding was released already (a KeepAlive raced its Release).
    if (this.ownPrefix !== undefined && leaseId.startsWith(this.ownPrefix)) return false;
    const st = this.lookup(model, pool) ?? this.poolState(pool, model);
    st.outstanding++;
    this.countBand(st, '', 1);
    this.leases.set(leaseId, { state: st, band: '', released: false, adopted: true });
    this.recordSaturation(st);
    return true;
  }

  /** Whether a lease is outstanding here. */
  hasLease(leaseId: string): boolean {
    return this.leases.has(leaseId);
  }

  /**
   * Grants (or renews) a router's credit in a pool: a number of requests it
   * may admit on its own, without asking, until `expiresAt`. `inUse` is how
   * many it has admitted that way and not finished; they stay counted even
   * when the new limit is lower (the router then admits none on its own until
   * it is under the limit again), and they are adopted after a failover.
   *
   * The credit is half of what the *lowest* band could still be admitted to
   * the pool now (the slots, queue and KV rule counting every lease and every
   * other router's credit), split by this half-rule between routers as they
   * renew; it is 0 while any request is queued here (the queue has something
   * to decide) and shrinks to 0 as the pool approaches the lowest ceiling.
   * Every credit counts as outstanding leases, so the global bound holds.
   */
  credit(routerId: string, model: string, pool: string, inUse: number, ttlMs: number, maxLimit = 256): CreditGrant {
    const now = this.clock.now();
    this.expireCredits(now);
    const key = `${routerId}\u0000${model}\u0000${pool}`;
    const st = this.lookup(model, pool) ?? this.poolState(pool, model);
    const old = this.credits.get(key);
    if (old) old.st.creditReserved -= Math.max(old.limit, old.inUse);
    inUse = Math.max(0, Math.floor(inUse));
    let limit = 0;
    let headroom = 0;
    if (!this.closed && this.totalQueued === 0 && maxLimit > 0) {
      headroom = this.lowestBandHeadroom(st, 2 * maxLimit);
      limit = Math.min(maxLimit, Math.floor(headroom / 2));
    }
    const c: CreditState = { st, limit, inUse, expiresAt: now + ttlMs };
    this.credits.set(key, c);
    st.creditReserved += Math.max(limit, inUse);
    if (c.limit === 0 && c.inUse === 0) {
      this.credits.delete(key);
    } else this.armCreditTimer(c.expiresAt);
    if (this.log && this.log.isLevelEnabled?.('debug') !== false) {
      const p = this.parts(st, 0);
      this.log.debug(
        {
          routerId,
          pool,
          model,
          limit,
          inUse,
          lowestBandHeadroom: headroom,
          queued: this.totalQueued,
          saturation: { total: p.total, slots: p.slots, queue: p.queue, kv: p.kv },
        },
        'admission credit',
      );
    }
    this.recordSaturation(st);
    this.dispatch();
    return { limit, expiresAt: c.expiresAt };
  }

  /** Drops every credit of a router (it went silent); what it had in use is released with them. */
  dropCredits(routerId: string): void {
    for (const [k, c] of this.credits) {
      if (!k.startsWith(`${routerId}\u0000`)) continue;
      c.st.creditReserved -= Math.max(c.limit, c.inUse);
      this.credits.delete(k);
      this.recordSaturation(c.st);
    }
    this.dispatch();
  }

  /** Slots reserved by credits in a pool (tests, snapshot). */
  creditReserved(pool: string, model = ''): number {
    return this.lookup(model, pool)?.creditReserved ?? 0;
  }

  /** Every fed replica's slots: declared, learned, and what the detector uses now. */
  replicaSlots(): ReplicaSlots[] {
    const out: ReplicaSlots[] = [];
    for (const st of this.pools.values()) {
      const peer = peerCapacity(st);
      for (const r of st.replicas) {
        const h = st.slots.get(r.id);
        const c = capacityOf(h, r.running, peer);
        out.push({
          pool: st.pool,
          model: st.model,
          id: r.id,
          ...(h?.declared !== undefined ? { declared: h.declared } : {}),
          ...(h?.declared === undefined && h?.learner.learned !== undefined ? { learned: h.learner.learned } : {}),
          capacity: c.capacity,
          confirmed: c.confirmed,
          ...(c.fromPeers ? { fromPeers: true } : {}),
        });
      }
    }
    return out;
  }

  outstandingLeases(): number {
    return this.leases.size;
  }

  queued(): number {
    return this.totalQueued;
  }

  /** Queued and outstanding per model, every band and pool summed (what the autoscaler reads, docs/capacity.md). */
  modelLoads(): Map<string, { queued: number; outstanding: number }> {
    const out = new Map<string, { queued: number; outstanding: number }>();
    const of = (m: string) => out.get(m) ?? (out.set(m, { queued: 0, outstanding: 0 }), out.get(m)!);
    for (const b of this.bands) for (const f of b.flows.values()) for (const w of f.queue) of(w.req.model).queued++;
    for (const st of this.pools.values()) if (st.model) of(st.model).outstanding += st.outstanding;
    return out;
  }

  snapshot(): AdmissionSnapshot {
    const queued: Record<string, number> = {};
    for (const b of this.bands) queued[b.cfg.name] = b.size;
    const outstanding: Record<string, number> = {};
    const saturation: Record<string, number> = {};
    for (const st of this.pools.values()) {
      const k = st.model ? `${st.model}@${st.pool}` : st.pool;
      outstanding[k] = st.outstanding;
      saturation[k] = this.sat(st, 0);
    }
    return { queued, outstanding, saturation };
  }

  /** True after `close()`: rejections from then on mean "shut down", not a queue decision. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Turns every queued request away and stops the timer; outstanding leases stay valid. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    if (this.creditTimer !== undefined) this.clock.clearTimer(this.creditTimer);
    this.creditTimer = undefined;
    for (const b of this.bands) {
      for (const f of [...b.flows.values()]) {
        for (const w of [...f.queue]) {
          this.remove(w);
          w.resolve(this.reject(b, 'full', this.clock.now() - w.enqueuedAt, 'admission is shutting down'));
        }
      }
    }
  }

  // --- internals -------------------------------------------------------------

  private thresholdsFor(model: string): SaturationThresholds {
    const o = this.config.models?.[model];
    return {
      targetWaitingPerReplica: o?.targetWaitingPerReplica ?? this.config.targetWaitingPerReplica,
      kvCeiling: o?.kvCeiling ?? this.config.kvCeiling,
    };
  }

  private poolState(pool: string, model: string): PoolState {
    const k = poolKey(model, pool);
    let st = this.pools.get(k);
    if (!st) {
      st = {
        pool,
        model,
        replicas: [],
        slots: new Map(),
        thresholds: this.thresholdsFor(model),
        outstanding: 0,
        byBand: new Map(),
        releasedSinceFeed: 0,
        creditReserved: 0,
      };
      this.pools.set(k, st);
    }
    return st;
  }

  /** The model's own state in a pool, else the pool's model-agnostic state. */
  private lookup(model: string, pool: string): PoolState | undefined {
    return this.pools.get(poolKey(model, pool)) ?? this.pools.get(poolKey('', pool));
  }

  /** Saturation components with `extra` more leases than are outstanding. */
  private parts(st: PoolState, extra: number): SaturationParts {
    const n = st.replicas.length;
    const released = n > 0 ? st.releasedSinceFeed / n : 0;
    const peer = peerCapacity(st);
    const loads: ReplicaLoad[] = st.replicas.map((r) => {
      const c = capacityOf(st.slots.get(r.id), r.running, peer);
      return {
        ...afterReleases(r, released),
        ...(r.targetWaiting !== undefined ? { targetWaiting: r.targetWaiting } : {}),
        kvUsage: r.kvUsage,
        inflight: r.inflight ?? 0,
        batchCapacity: c.capacity,
        capacityConfirmed: c.confirmed,
      };
    });
    return poolSaturationParts(loads, st.thresholds, st.outstanding + st.creditReserved + extra);
  }

  /** How many more requests of the lowest band the pool would admit now (at most `cap`). */
  private lowestBandHeadroom(st: PoolState, cap: number): number {
    const band = this.bands[this.bands.length - 1];
    if (band.cfg.saturationCeiling > 1) return cap;
    const admits = (k: number) =>
      bandVerdict(this.parts(st, k), {
        ceiling: band.cfg.saturationCeiling,
        top: band === this.bands[0],
        higherDemand: this.higherDemand(band, st),
        headroomPerReplica: this.headroom,
      }).admit;
    if (!admits(1)) return 0;
    // Admission is monotone in k: the largest k that still admits, by bisection.
    let lo = 1;
    let hi = cap;
    if (admits(hi)) return hi;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (admits(mid)) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  private expireCredits(now: number): void {
    for (const [k, c] of this.credits) {
      if (c.expiresAt > now) continue;
      c.st.creditReserved -= Math.max(c.limit, c.inUse);
      this.credits.delete(k);
      this.recordSaturation(c.st);
    }
  }

  private armCreditTimer(at: number): void {
    if (at >= this.creditTimerAt) return;
    if (this.creditTimer !== undefined) this.clock.clearTimer(this.creditTimer);
    this.creditTimerAt = at;
    this.creditTimer = this.clock.setTimer(
      () => {
        this.creditTimer = undefined;
        this.creditTimerAt = Number.POSITIVE_INFINITY;
        const now = this.clock.now();
        this.expireCredits(now);
        let next = Number.POSITIVE_INFINITY;
        for (const c of this.credits.values()) next = Math.min(next, c.expiresAt);
        if (Number.isFinite(next)) this.armCreditTimer(next);
        this.dispatch();
      },
      Math.max(0, at - this.clock.now()),
    );
  }

  private sat(st: PoolState, extra: number): number {
    return this.parts(st, extra).total;
  }

  private recordSaturation(st: PoolState): void {
    const p = this.parts(st, 0);
    this.rec.poolSaturation(st.pool, Number.isFinite(p.total) ? p.total : 1e9, st.model, p);
  }

  private countBand(st: PoolState, band: string, d: number): void {
    const n = (st.byBand.get(band) ?? 0) + d;
    if (n > 0) st.byBand.set(band, n);
    else st.byBand.delete(band);
  }

  /** A band above `band` has a lease outstanding in the pool or a request queued anywhere. */
  private higherDemand(band: BandState, st: PoolState): boolean {
    for (const b of this.bands) {
      if (b === band) return false;
      if (b.size > 0 || (st.byBand.get(b.cfg.name) ?? 0) > 0) return true;
    }
    return false;
  }

  private verdict(band: BandState, st: PoolState): { v: BandVerdict; after: SaturationParts; higher: boolean } {
    const after = this.parts(st, 1);
    const higher = this.higherDemand(band, st);
    const v = bandVerdict(after, {
      ceiling: band.cfg.saturationCeiling,
      top: band === this.bands[0],
      higherDemand: higher,
      headroomPerReplica: this.headroom,
    });
    return { v, after, higher };
  }

  private explain(band: BandState, req: AdmissionRequest, pool: string, d: { v: BandVerdict; after: SaturationParts; higher: boolean }): void {
    if (!this.log || this.log.isLevelEnabled?.('debug') === false) return;
    const a = d.after;
    const r3 = (x: number) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : x);
    this.log.debug(
      {
        requestId: req.requestId,
        band: band.cfg.name,
        pool,
        model: req.model,
        decision: d.v.admit ? 'admit' : 'hold',
        rule: d.v.rule,
        ceiling: band.cfg.saturationCeiling,
        saturation: { total: r3(a.total), slots: r3(a.slots), queue: r3(a.queue), kv: r3(a.kv) },
        slotsUsed: r3(a.used),
        slotCapacity: a.capacity,
        slotLimit: Number.isFinite(d.v.slotLimit) ? r3(d.v.slotLimit) : null,
        higherDemand: d.higher,
      },
      'admission decision',
    );
  }

  /**
   * The first candidate pool that stays within the band's ceiling once this
   * request is counted (spillover, docs/admission.md#queues); a band above 1 never waits.
   */
  private pickPool(band: BandState, req: AdmissionRequest, arriving = false): string | undefined {
    const ceiling = band.cfg.saturationCeiling;
    let firstHold: { pool: string; d: ReturnType<AdmissionController['verdict']> } | undefined;
    for (const p of req.candidatePools) {
      const st = this.lookup(req.model, p);
      if (!st) continue;
      const d = this.verdict(band, st);
      if (d.v.admit) {
        this.explain(band, req, p, d);
        return p;
      }
      firstHold ??= { pool: p, d };
    }
    // A hold is explained once, when the request arrives (dispatch re-checks queued heads often).
    if (arriving && firstHold && ceiling <= 1) this.explain(band, req, firstHold.pool, firstHold.d);
    if (ceiling > 1) {
      // Never wait: the least saturated candidate, else the first.
      let best: string | undefined;
      let bestSat = Number.POSITIVE_INFINITY;
      for (const p of req.candidatePools) {
        const st = this.lookup(req.model, p);
        const s = st ? this.sat(st, 1) : Number.POSITIVE_INFINITY;
        if (s < bestSat) {
          best = p;
          bestSat = s;
        }
      }
      return best ?? req.candidatePools[0];
    }
    return undefined;
  }

  private grant(band: BandState, req: AdmissionRequest, pool: string, enqueuedAt: number): AcquireResult {
    const queuedMs = Math.max(0, this.clock.now() - enqueuedAt);
    const st = this.lookup(req.model, pool) ?? this.poolState(pool, req.model);
    st.outstanding++;
    this.countBand(st, band.cfg.name, 1);
    const id = this.newLeaseId();
    this.leases.set(id, { state: st, band: band.cfg.name, released: false });
    const lease: Lease = { id, pool, release: (o?: LeaseOutcome) => void this.release(id, o) };
    band.ewmaWaitMs = band.ewmaWaitMs * 0.8 + queuedMs * 0.2;
    this.rec.waitSeconds(band.cfg.name, req.model, queuedMs / 1000);
    this.recordSaturation(st);
    return { kind: 'granted', lease, pool, queuedMs };
  }

  private reject(band: BandState, reason: RejectReason, queuedMs: number, message: string): AcquireResult {
    this.rec.rejected(band.cfg.name, reason);
    const out: AcquireResult = { kind: 'rejected', reason, queuedMs, message };
    if (reason === 'full' || reason === 'displaced') out.retryAfterSeconds = this.retryAfter(band);
    return out;
  }

  private retryAfter(band: BandState): number {
    const ttlS = Math.max(1, Math.ceil(this.config.queueTtlMs / 1000));
    return Math.min(ttlS, Math.max(1, Math.ceil(band.ewmaWaitMs / 1000)));
  }

  private depthOf(band: BandState, model: string): number {
    let n = 0;
    for (const f of band.flows.values()) for (const w of f.queue) if (w.req.model === model) n++;
    return n;
  }

  /** The newest request of the lowest non-empty band strictly below `band`. */
  private newestBelow(band: BandState): Waiter | undefined {
    for (let i = this.bands.length - 1; i >= 0; i--) {
      const b = this.bands[i];
      if (b.cfg.priority >= band.cfg.priority) return undefined;
      if (b.size === 0) continue;
      let newest: Waiter | undefined;
      for (const f of b.flows.values()) {
        const last = f.queue[f.queue.length - 1];
        if (last && (!newest || last.seq > newest.seq)) newest = last;
      }
      return newest;
    }
    return undefined;
  }

  /** Takes a waiter out of its queue; false when it was no longer queued. */
  private remove(w: Waiter): boolean {
    const i = w.flow.queue.indexOf(w);
    if (i < 0) return false;
    w.flow.queue.splice(i, 1);
    w.band.size--;
    this.totalQueued--;
    w.cleanup();
    if (w.flow.queue.length === 0) w.band.flows.delete(w.flow.tenant);
    this.rec.queueDepth(w.band.cfg.name, w.req.model, this.depthOf(w.band, w.req.model));
    return true;
  }

  private dispatch(): void {
    if (this.dispatching) {
      this.dispatchAgain = true;
      return;
    }
    this.dispatching = true;
    try {
      do {
        this.dispatchAgain = false;
        this.dispatchOnce();
      } while (this.dispatchAgain);
    } finally {
      this.dispatching = false;
    }
  }

  private dispatchOnce(): void {
    const now = this.clock.now();
    for (const band of this.bands) {
      while (band.size > 0) {
        // Tenants in fairness order: least served first, ties to the one served longest ago.
        const flows = [...band.flows.values()].sort((a, b) => a.vt - b.vt || a.lastServed - b.lastServed);
        let granted = false;
        for (const flow of flows) {
          const head = flow.queue[0];
          if (head.deadline <= now) continue; // the TTL sweep turns it away
          const pool = this.pickPool(band, head.req);
          if (pool === undefined) continue;
          this.remove(head);
          flow.vt += band.cfg.fairness === 'tokens' ? Math.max(1, head.req.estimatedTokens) : 1;
          flow.lastServed = ++this.seq;
          if (flow.queue.length > 0 && !band.flows.has(flow.tenant)) band.flows.set(flow.tenant, flow);
          head.resolve(this.grant(band, head.req, pool, head.enqueuedAt));
          granted = true;
          break;
        }
        if (!granted) break;
      }
    }
  }

  private armTimer(at: number): void {
    if (at >= this.timerAt) return;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timerAt = at;
    this.timer = this.clock.setTimer(() => this.onTimer(), at - this.clock.now());
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const b of this.bands) {
      for (const f of [...b.flows.values()]) {
        for (const w of [...f.queue]) {
          if (w.deadline <= now) {
            this.remove(w);
            w.resolve(this.reject(b, 'ttl', now - w.enqueuedAt, `waited longer than the queue TTL in ${b.cfg.name}`));
          } else next = Math.min(next, w.deadline);
        }
      }
    }
    if (Number.isFinite(next)) this.armTimer(next);
    this.dispatch();
  }
}

import type { AdmissionController } from '@llmgw/admission-core';
import type { admissionV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { boundedSchema, unary, type UnaryContext } from '@llmgw/grpc';
import { z } from 'zod';
import { CreditSizer } from './credit-sizing';
import { reasonToWire } from './reason';
import type { ServedPools } from './served';

/** A minimal logger shape (pino fits). */
export interface RpcLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface AdmissionRpcServiceOptions {
  /** The controller while this instance leads; undefined on a standby. */
  controller: () => AdmissionController | undefined;
  instanceId: string;
  fencingToken: () => number | undefined;
  /** A router silent for this long loses all its leases. */
  routerTtlMs: number;
  /**
   * A lease the router's KeepAlive no longer lists is released once it is at
   * least this old (its Release was lost); younger ones may still be on their
   * way to the router. Default 10 s.
   */
  reconcileAfterMs?: number;
  log?: RpcLogger;
  now?: () => number;
  /**
   * The (model, pool) pairs the endpoint source lists. With it, an Acquire
   * whose pools nobody serves the model in is refused with NOT_FOUND once
   * the next endpoint update (or `unknownPoolGraceMs`) confirms it, instead
   * of queueing until its deadline.
   */
  served?: ServedPools;
  /** How long an Acquire for an unserved model or pool waits for an endpoint update before it is refused, ms (default 1000). */
  unknownPoolGraceMs?: number;
  /** How long a router's credit stays reserved after a renewal, ms (default 1500). */
  creditTtlMs?: number;
  /**
   * Largest credit per router and pool; 0 turns credits off (every request
   * asks). Default 4096. Below it each credit is sized from the router's
   * demand (`CreditSizer`).
   */
  creditMax?: number;
}

interface RouterState {
  lastSeen: number;
  /** Lease id → when it was granted (or adopted) here. */
  leases: Map<string, number>;
}

const name = z.string().max(256);
const safeInt = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** Acquire's request at the edge: sizes and ranges (INVALID_ARGUMENT naming the field); the rest is checked in `acquire`. */
const acquireSchema = boundedSchema(
  z
    .object({
      requestId: name,
      band: name,
      tenant: name,
      model: name,
      candidatePools: z.array(name).max(64, 'at most 64 candidate pools'),
      estimatedTokens: z.number().int('estimated_tokens must be a whole number').min(0, 'estimated_tokens must be >= 0').max(Number.MAX_SAFE_INTEGER),
      deadlineUnixMs: safeInt,
      routerId: name,
    })
    .passthrough(),
  { maxString: 256, maxRepeated: 64 },
) as unknown as z.ZodType<admissionV1.AcquireRequest__Output>;

const unavailable = (msg: string) => new LlmgwError('LLMGW_ERR_UNAVAILABLE', msg);
const invalid = (msg: string) => new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', msg);

/**
 * The gRPC handlers of llmgw.admission.v1.Admission around an
 * AdmissionController. Leases are tracked per router: every call from a
 * router renews all its leases, and `sweep()` (run on a timer by `start`)
 * releases the leases of routers silent for longer than `routerTtlMs` — a
 * router that died cannot leak capacity for longer than that.
 */
export class AdmissionRpcService {
  private readonly routers = new Map<string, RouterState>();
  private readonly leaseRouter = new Map<string, string>();
  private readonly sizer: CreditSizer;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly now: () => number;

  constructor(private readonly o: AdmissionRpcServiceOptions) {
    this.now = o.now ?? Date.now;
    this.sizer = new CreditSizer({ max: o.creditMax ?? 4096, now: this.now });
  }

  /** Starts the sweep timer (every routerTtlMs / 3). */
  start(): void {
    this.timer ??= setInterval(() => this.sweep(), Math.max(50, Math.floor(this.o.routerTtlMs / 3)));
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Forgets every router and lease (a new term of leadership starts empty; KeepAlive re-adopts). */
  reset(): void {
    this.routers.clear();
    this.leaseRouter.clear();
    this.sizer.clear();
  }

  /** Releases the leases of routers not heard from within routerTtlMs; returns how many. */
  sweep(): number {
    const ctl = this.o.controller();
    const cutoff = this.now() - this.o.routerTtlMs;
    let n = 0;
    for (const [id, r] of this.routers) {
      if (r.lastSeen > cutoff) continue;
      for (const l of r.leases.keys()) {
        this.leaseRouter.delete(l);
        if (ctl?.release(l)) n++;
      }
      this.routers.delete(id);
      this.sizer.forget(id);
      ctl?.dropCredits(id);
      if (r.leases.size) this.o.log?.warn({ router: id, leases: r.leases.size }, 'router silent past router_ttl; its leases were released');
    }
    return n;
  }

  private touch(routerId: string): RouterState {
    let r = this.routers.get(routerId);
    if (!r) this.routers.set(routerId, (r = { lastSeen: this.now(), leases: new Map() }));
    r.lastSeen = this.now();
    return r;
  }

  /**
   * The typed handlers of llmgw.admission.v1.Admission. Each runs through
   * libs/grpc `unary`: a server span continuing the caller's `traceparent`,
   * the caller's x-request-id, and errors as catalogue statuses
   * (UNAVAILABLE on a standby, INVALID_ARGUMENT for a bad request).
   */
  implementation(): admissionV1.AdmissionHandlers {
    const log = this.o.log && { error: (o: object, m: string) => this.o.log!.warn(o, m) };
    return {
      Acquire: unary({ log, schema: acquireSchema, handler: (q: admissionV1.AcquireRequest__Output, ctx) => this.acquire(q, ctx) }),
      Release: unary({ log, handler: (q: admissionV1.ReleaseRequest__Output): admissionV1.ReleaseResponse => this.release(q) }),
      KeepAlive: unary({ log, handler: (q: admissionV1.KeepAliveRequest__Output): admissionV1.KeepAliveResponse => this.keepAlive(q) }),
      Credit: unary({ log, handler: (q: admissionV1.CreditRequest__Output): admissionV1.CreditResponse => this.credit(q) }),
      Status: unary({ log, handler: (): admissionV1.StatusResponse => this.status() }),
    };
  }

  private leader(): AdmissionController {
    const ctl = this.o.controller();
    if (!ctl) throw unavailable('standby: not the admission leader');
    return ctl;
  }

  private release(q: admissionV1.ReleaseRequest__Output): admissionV1.ReleaseResponse {
    const { leaseId, routerId } = q;
    const ctl = this.o.controller();
    if (routerId) this.touch(routerId).leases.delete(leaseId);
    const owner = this.leaseRouter.get(leaseId);
    if (owner !== undefined) {
      this.leaseRouter.delete(leaseId);
      this.routers.get(owner)?.leases.delete(leaseId);
    }
    this.sizer.released(leaseId);
    const released = ctl ? ctl.release(leaseId, { status: q.status, promptTokens: q.promptTokens, completionTokens: q.completionTokens }) : false;
    return { released };
  }

  private keepAlive(q: admissionV1.KeepAliveRequest__Output): admissionV1.KeepAliveResponse {
    const ctl = this.leader();
    const { routerId, leases } = q;
    if (!routerId) throw invalid('router_id is required');
    const r = this.touch(routerId);
    let adopted = 0;
    const listed = new Set<string>();
    for (const l of leases) {
      listed.add(l.leaseId);
      if (ctl.adopt(l.leaseId, l.pool)) {
        // Granted by a previous leader: count it here so failover keeps the load.
        adopted++;
        r.leases.set(l.leaseId, this.now());
        this.leaseRouter.set(l.leaseId, routerId);
      }
    }
    // Leases the router no longer holds: their Release was lost on the way.
    const cutoff = this.now() - (this.o.reconcileAfterMs ?? 10_000);
    let dropped = 0;
    for (const [id, at] of r.leases) {
      if (listed.has(id) || at > cutoff) continue;
      r.leases.delete(id);
      this.leaseRouter.delete(id);
      this.sizer.released(id);
      if (ctl.release(id)) dropped++;
    }
    if (adopted) this.o.log?.info({ router: routerId, adopted }, 'adopted leases from a previous leader');
    if (dropped) this.o.log?.warn({ router: routerId, dropped }, 'released leases the router no longer holds (lost Release)');
    return { known: r.leases.size, routerTtlMs: this.o.routerTtlMs };
  }

  private credit(q: admissionV1.CreditRequest__Output): admissionV1.CreditResponse {
    const ctl = this.leader();
    const { routerId, uses } = q;
    if (!routerId) throw invalid('router_id is required');
    if (uses.length > 10_000) throw invalid(`too many credit uses in one call (${uses.length} > 10000)`);
    const bad = uses.find((u) => !u.pool);
    if (bad) throw invalid(`credit use for model "${bad.model}" has no pool`);
    this.touch(routerId);
    const ttlMs = this.o.creditTtlMs ?? 1500;
    const grants = this.sizer.renew(ctl, routerId, uses, ttlMs);
    return { grants, ttlMs, fencingToken: this.o.fencingToken() ?? 0 };
  }

  private status(): admissionV1.StatusResponse {
    const ctl = this.o.controller();
    return {
      serving: ctl !== undefined,
      fencingToken: ctl ? (this.o.fencingToken() ?? 0) : 0,
      instanceId: this.o.instanceId,
      queued: ctl?.queued() ?? 0,
      outstanding: ctl?.outstandingLeases() ?? 0,
      models: ctl ? [...ctl.modelLoads()].map(([model, l]) => ({ model, ...l })) : [],
    };
  }

  /**
   * Refuses (NOT_FOUND) an Acquire naming no pool that serves its model: it
   * could only wait out its deadline. An endpoint list that does not list it
   * yet gets one more update (or the grace time) to catch up with the router's.
   */
  private async assertServed(model: string, pools: readonly string[], signal: AbortSignal): Promise<void> {
    const served = this.o.served;
    if (!served || served.serves(model, pools) !== false) return;
    await served.next(this.o.unknownPoolGraceMs ?? 1000, signal);
    if (served.serves(model, pools) !== false) return;
    throw new LlmgwError(
      'LLMGW_ERR_NOT_FOUND',
      `no endpoint serves model "${model}" in ${pools.length === 1 ? `pool "${pools[0]}"` : `any of pools ${pools.map((p) => `"${p}"`).join(', ')}`}; admission refuses it instead of queueing it`,
    );
  }

  private async acquire(q: admissionV1.AcquireRequest__Output, ctx: UnaryContext): Promise<admissionV1.AcquireResponse> {
    const ctl = this.leader();
    if (!q.band) throw invalid('band is required');
    if (!q.model) throw invalid('model is required');
    if (!q.candidatePools?.length) throw invalid('candidate_pools must not be empty');
    if (!(q.estimatedTokens >= 0)) throw invalid('estimated_tokens must be >= 0');
    await this.assertServed(q.model, q.candidatePools, ctx.signal);
    const routerId = q.routerId || ctx.call.getPeer();
    this.touch(routerId);
    const r = await ctl.acquire(
      {
        requestId: q.requestId,
        band: q.band,
        tenant: q.tenant || 'default',
        model: q.model,
        candidatePools: q.candidatePools,
        estimatedTokens: q.estimatedTokens,
        ...(q.deadlineUnixMs > 0 ? { deadlineMs: q.deadlineUnixMs } : {}),
      },
      ctx.signal,
    );
    if (r.kind === 'granted') {
      if (ctx.signal.aborted) {
        // The answer can no longer reach the router: the lease would never be released.
        r.lease.release();
        throw new LlmgwError('LLMGW_ERR_CANCELLED', 'the caller went away before the grant');
      }
      this.touch(routerId).leases.set(r.lease.id, this.now());
      this.leaseRouter.set(r.lease.id, routerId);
      this.sizer.acquired(routerId, r.lease.id, q.model, r.pool);
      return { granted: { leaseId: r.lease.id, pool: r.pool }, queuedMs: Math.round(r.queuedMs) };
    }
    // Leadership lost (or shutting down) while it waited: not a verdict on the request, so
    // the router may re-queue it with the next leader or its own fallback.
    if (ctl.isClosed) throw unavailable('admission instance stepped down while the request was queued');
    return { rejected: { reason: reasonToWire(r.reason), retryAfterSeconds: r.retryAfterSeconds ?? 0, message: r.message }, queuedMs: Math.round(r.queuedMs) };
  }
}

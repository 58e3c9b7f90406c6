import * as grpc from '@grpc/grpc-js';
import type { AdmissionController } from '@llmgw/admission-core';
import type {
  AcquireRequestWire,
  AcquireResponseWire,
  KeepAliveRequestWire,
  KeepAliveResponseWire,
  ReleaseRequestWire,
  StatusResponseWire,
} from './wire';
import { reasonToWire } from './wire';
import type { CreditLimit, CreditUse } from './credits';

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
  /** How long a router's credit stays reserved after a renewal, ms (default 1500). */
  creditTtlMs?: number;
  /** Largest credit per router and pool; 0 turns credits off (every request asks). Default 256. */
  creditMax?: number;
}

interface RouterState {
  lastSeen: number;
  /** Lease id → when it was granted (or adopted) here. */
  leases: Map<string, number>;
}

const unavailable = (msg: string): Partial<grpc.StatusObject> => ({ code: grpc.status.UNAVAILABLE, details: msg });
const invalid = (msg: string): Partial<grpc.StatusObject> => ({ code: grpc.status.INVALID_ARGUMENT, details: msg });

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
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly now: () => number;

  constructor(private readonly o: AdmissionRpcServiceOptions) {
    this.now = o.now ?? Date.now;
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

  implementation(): grpc.UntypedServiceImplementation {
    return {
      acquire: (call: grpc.ServerUnaryCall<AcquireRequestWire, AcquireResponseWire>, cb: grpc.sendUnaryData<AcquireResponseWire>) => this.acquire(call, cb),
      release: (call: grpc.ServerUnaryCall<ReleaseRequestWire, unknown>, cb: grpc.sendUnaryData<{ released: boolean }>) => {
        const { leaseId, routerId } = call.request;
        const ctl = this.o.controller();
        if (routerId) this.touch(routerId).leases.delete(leaseId);
        const owner = this.leaseRouter.get(leaseId);
        if (owner !== undefined) {
          this.leaseRouter.delete(leaseId);
          this.routers.get(owner)?.leases.delete(leaseId);
        }
        const released = ctl ? ctl.release(leaseId, { status: call.request.status, promptTokens: call.request.promptTokens, completionTokens: call.request.completionTokens }) : false;
        cb(null, { released });
      },
      keepAlive: (call: grpc.ServerUnaryCall<KeepAliveRequestWire, KeepAliveResponseWire>, cb: grpc.sendUnaryData<KeepAliveResponseWire>) => {
        const ctl = this.o.controller();
        if (!ctl) return cb(unavailable('standby: not the admission leader'));
        const { routerId, leases } = call.request;
        if (!routerId) return cb(invalid('router_id is required'));
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
          if (ctl.release(id)) dropped++;
        }
        if (adopted) this.o.log?.info({ router: routerId, adopted }, 'adopted leases from a previous leader');
        if (dropped) this.o.log?.warn({ router: routerId, dropped }, 'released leases the router no longer holds (lost Release)');
        cb(null, { known: r.leases.size, routerTtlMs: this.o.routerTtlMs });
      },
      credit: (
        call: grpc.ServerUnaryCall<{ routerId: string; uses: CreditUse[] }, unknown>,
        cb: grpc.sendUnaryData<{ grants: CreditLimit[]; ttlMs: number; fencingToken: number }>,
      ) => {
        const ctl = this.o.controller();
        if (!ctl) return cb(unavailable('standby: not the admission leader'));
        const { routerId, uses } = call.request;
        if (!routerId) return cb(invalid('router_id is required'));
        if (uses.length > 10_000) return cb(invalid(`too many credit uses in one call (${uses.length} > 10000)`));
        const bad = uses.find((u) => !u.pool);
        if (bad) return cb(invalid(`credit use for model "${bad.model}" has no pool`));
        this.touch(routerId);
        const ttlMs = this.o.creditTtlMs ?? 1500;
        const max = this.o.creditMax ?? 256;
        const grants = uses.map((u) => ({ model: u.model, pool: u.pool, limit: ctl.credit(routerId, u.model, u.pool, u.inUse, ttlMs, max).limit }));
        cb(null, { grants, ttlMs, fencingToken: this.o.fencingToken() ?? 0 });
      },
      status: (_call: grpc.ServerUnaryCall<unknown, StatusResponseWire>, cb: grpc.sendUnaryData<StatusResponseWire>) => {
        const ctl = this.o.controller();
        cb(null, {
          serving: ctl !== undefined,
          fencingToken: ctl ? (this.o.fencingToken() ?? 0) : 0,
          instanceId: this.o.instanceId,
          queued: ctl?.queued() ?? 0,
          outstanding: ctl?.outstandingLeases() ?? 0,
        });
      },
    };
  }

  private acquire(call: grpc.ServerUnaryCall<AcquireRequestWire, AcquireResponseWire>, cb: grpc.sendUnaryData<AcquireResponseWire>): void {
    const ctl = this.o.controller();
    if (!ctl) return cb(unavailable('standby: not the admission leader'));
    const q = call.request;
    if (!q.band) return cb(invalid('band is required'));
    if (!q.model) return cb(invalid('model is required'));
    if (!q.candidatePools?.length) return cb(invalid('candidate_pools must not be empty'));
    if (!(q.estimatedTokens >= 0)) return cb(invalid('estimated_tokens must be >= 0'));
    const routerId = q.routerId || call.getPeer();
    this.touch(routerId);
    const ac = new AbortController();
    call.on('cancelled', () => ac.abort());
    ctl
      .acquire(
        {
          requestId: q.requestId,
          band: q.band,
          tenant: q.tenant || 'default',
          model: q.model,
          candidatePools: q.candidatePools,
          estimatedTokens: q.estimatedTokens,
          ...(q.deadlineUnixMs > 0 ? { deadlineMs: q.deadlineUnixMs } : {}),
        },
        ac.signal,
      )
      .then((r) => {
        if (r.kind === 'granted') {
          if (call.cancelled) {
            // The answer can no longer reach the router: the lease would never be released.
            r.lease.release();
            return;
          }
          this.touch(routerId).leases.set(r.lease.id, this.now());
          this.leaseRouter.set(r.lease.id, routerId);
          cb(null, { granted: { leaseId: r.lease.id, pool: r.pool }, queuedMs: Math.round(r.queuedMs) });
        } else if (ctl.isClosed) {
          // Leadership lost (or shutting down) while it waited: not a verdict on the request, so
          // the router may re-queue it with the next leader or its own fallback.
          cb(unavailable('admission instance stepped down while the request was queued'));
        } else {
          cb(null, { rejected: { reason: reasonToWire(r.reason), retryAfterSeconds: r.retryAfterSeconds ?? 0, message: r.message }, queuedMs: Math.round(r.queuedMs) });
        }
      })
      .catch((e) => {
        this.o.log?.warn({ err: e }, 'admission acquire failed');
        cb({ code: grpc.status.INTERNAL, details: 'internal error' });
      });
  }
}

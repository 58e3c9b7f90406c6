import type { AcquireResult, Admission, AdmissionController, AdmissionRequest, Lease, LeaseOutcome } from '@llmgw/admission-core';
import { AdmissionRpcClient, isUnreachable } from './client';
import { CreditBook } from './credits';
import { reasonFromWire } from './reason';

export interface RemoteAdmissionOptions {
  client: AdmissionRpcClient;
  /** The in-process fallback, fed with the router's own scraped stats. */
  local: AdmissionController;
  /** Stable id of this router process (KeepAlive key). */
  routerId: string;
  /** Longest an Acquire may wait when the request has no deadline, ms (the queue TTL). */
  queueTtlMs: number;
  keepaliveIntervalMs?: number;
  probeIntervalMs?: number;
  /** Told on every switch: true = running on the local fallback. */
  onDegraded?: (degraded: boolean) => void;
  /**
   * How often to renew credits with the service, ms; 0 or absent = no
   * credits (every request asks with Acquire).
   */
  creditIntervalMs?: number;
  log?: { info(o: object, m: string): void; warn(o: object, m: string): void; debug?(o: object, m: string): void };
  /**
   * Told when the service is lost (the switch to the fallback) and back (the
   * switch back): the service host's `ctx.dependency`, which writes one warn
   * line each, the second with the outage's length. Without it the switches
   * are logged here.
   */
  dependency?: { lost(err: unknown): void; ok(): void };
}

/**
 * The router's admission over gRPC (docs/admission.md). While the service
 * answers, every router shares its queues. When it cannot be reached
 * (UNAVAILABLE, a deadline, a broken connection) the request — and every
 * following one — goes to the in-process controller, the router is flagged
 * degraded, and a probe asks the service's Status every probe interval; once
 * an instance serves again, new requests go back to it and the leases still
 * held are re-announced with KeepAlive (the service adopts them).
 */
export class RemoteAdmission implements Admission {
  private degraded = false;
  private readonly held = new Map<string, string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly keepaliveMs: number;
  private readonly probeMs: number;
  /** Per (model, pool) credit from the service: requests admitted here without a round trip. */
  readonly credits: CreditBook | undefined;
  private creditSeq = 0;

  constructor(private readonly o: RemoteAdmissionOptions) {
    this.keepaliveMs = o.keepaliveIntervalMs ?? 3000;
    this.probeMs = o.probeIntervalMs ?? 1000;
    if (o.creditIntervalMs && o.creditIntervalMs > 0) {
      this.credits = new CreditBook({
        renew: (uses) => o.client.credit(o.routerId, uses),
        intervalMs: o.creditIntervalMs,
        log: { debug: (x, m) => o.log?.debug?.(x, m), warn: (x, m) => o.log?.warn(x, m) },
      });
    }
  }

  get isDegraded(): boolean {
    return this.degraded;
  }

  /** Starts the KeepAlive / probe loop. */
  start(): void {
    this.schedule(0);
    this.credits?.start();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.credits?.close();
    if (this.timer) clearTimeout(this.timer);
    this.o.client.close();
  }

  async acquire(req: AdmissionRequest, signal?: AbortSignal): Promise<AcquireResult> {
    if (this.degraded) return this.o.local.acquire(req, signal);
    const now = this.grantNow(req);
    if (now) return now;
    const started = Date.now();
    const waitMs = Math.max(100, (req.deadlineMs ?? started + this.o.queueTtlMs) - started) + 2000;
    try {
      const res = await this.o.client.acquire(
        {
          requestId: req.requestId,
          band: req.band,
          tenant: req.tenant,
          model: req.model,
          candidatePools: req.candidatePools,
          estimatedTokens: Math.max(0, Math.round(req.estimatedTokens)),
          deadlineUnixMs: req.deadlineMs ?? 0,
          routerId: this.o.routerId,
        },
        waitMs,
        signal,
      );
      if (res.granted) return this.granted(res.granted.leaseId, res.granted.pool, res.queuedMs);
      const rj = res.rejected;
      const reason = reasonFromWire(rj?.reason);
      return {
        kind: 'rejected',
        reason,
        queuedMs: res.queuedMs,
        message: rj?.message || 'rejected by admission',
        ...(rj?.retryAfterSeconds ? { retryAfterSeconds: rj.retryAfterSeconds } : {}),
      };
    } catch (e) {
      if (signal?.aborted) return { kind: 'rejected', reason: 'client_gone', queuedMs: Date.now() - started, message: 'the client went away' };
      if (!isUnreachable(e)) throw e;
      this.setDegraded(true, (e as Error).message);
      // Keep what is left of the request's time: the service already spent some.
      return this.o.local.acquire(req, signal);
    }
  }

  /** Far below every ceiling the service has lent this router credit: admitted here, no round trip. */
  grantNow(req: AdmissionRequest): AcquireResult | undefined {
    if (this.degraded) return undefined;
    const first = req.candidatePools[0];
    return first !== undefined && this.credits?.take(req.model, first) ? this.onCredit(req.model, first) : undefined;
  }

  private onCredit(model: string, pool: string): AcquireResult {
    let done = false;
    const lease: Lease = {
      id: `credit-${++this.creditSeq}`,
      pool,
      release: () => {
        if (done) return;
        done = true;
        this.credits?.put(model, pool);
      },
    };
    return { kind: 'granted', lease, pool, queuedMs: 0 };
  }

  private granted(id: string, pool: string, queuedMs: number): AcquireResult {
    this.held.set(id, pool);
    let done = false;
    const lease: Lease = {
      id,
      pool,
      release: (outcome?: LeaseOutcome) => {
        if (done) return;
        done = true;
        this.held.delete(id);
        this.o.client
          .release({
            leaseId: id,
            routerId: this.o.routerId,
            status: outcome?.status ?? 0,
            promptTokens: outcome?.promptTokens ?? 0,
            completionTokens: outcome?.completionTokens ?? 0,
          })
          .catch(() => undefined); // a lost release expires with this router's KeepAlive lapse or the next leader
      },
    };
    return { kind: 'granted', lease, pool, queuedMs };
  }

  private setDegraded(d: boolean, why: string): void {
    if (this.degraded === d) return;
    this.degraded = d;
    if (d) this.credits?.revoke();
    if (this.o.dependency) {
      if (d) this.o.dependency.lost(new Error(why));
      else this.o.dependency.ok();
    } else if (d) this.o.log?.warn({ reason: why, address: this.o.client.address }, 'admission service unreachable; using in-process admission');
    else this.o.log?.info({ address: this.o.client.address }, 'admission service answers again; using it');
    this.o.onDegraded?.(d);
    if (this.timer) clearTimeout(this.timer);
    this.schedule(d ? this.probeMs : 0);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (this.closed) return;
    if (this.degraded) {
      const addr = await this.o.client.findServing().catch(() => undefined);
      if (this.closed) return;
      if (addr !== undefined) {
        this.setDegraded(false, 'probe');
        return;
      }
      this.schedule(this.probeMs);
      return;
    }
    try {
      await this.o.client.keepAlive(
        this.o.routerId,
        [...this.held].map(([leaseId, pool]) => ({ leaseId, pool })),
      );
    } catch (e) {
      if (this.closed) return;
      // The current address may be a standby now; another may lead.
      const addr = await this.o.client.findServing().catch(() => undefined);
      if (addr === undefined) {
        this.setDegraded(true, (e as Error).message);
        return;
      }
    }
    if (!this.timer) this.schedule(this.keepaliveMs);
  }
}

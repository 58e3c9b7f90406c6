import type { Admission, Lease, LeaseOutcome } from '@llmgw/admission-core';
import type { RouterConfig } from '@llmgw/config';
import type { Principal, UsageRecord } from '@llmgw/contracts';
import { isLlmgwError, LlmgwError, type ErrorCode } from '@llmgw/errors';
import type { EndpointView } from '@llmgw/scheduling';
import type { Reservation, TenancyHooks } from '../tenancy/types';
import { permittedChain } from './chain';

/** What a plan reads of the router's configuration. */
export type PlanConfig = Pick<RouterConfig, 'cooldown_seconds'> & { admission: Pick<RouterConfig['admission'], 'queue_ttl'> };

/** Tokens an engine reported, as the reservation settles them. */
export interface PlanUsage {
  promptTokens: number;
  completionTokens: number;
}

/** The router-wide parts every plan uses (built once per router by createRouter). */
export interface PlanDeps {
  readonly cfg: PlanConfig;
  readonly tenancy: TenancyHooks;
  readonly admission: Admission;
  readonly catalog: { chain(model: string): string[] };
  /** Scheduling views of the endpoints serving `model`, fresh on each call. */
  views(model: string): EndpointView[];
  /** On-demand loading: a model with no replica yet is asked for, and waited for when nothing else can serve. */
  readonly onDemand?: {
    isOnDemand(model: string): boolean;
    touch(model: string, urgent?: boolean): void;
    hold(model: string, ready: () => boolean, signal: AbortSignal): Promise<boolean>;
  };
  /** Wall clock for admission deadlines. */
  readonly now?: () => number;
}

/** One request as the plan needs it. */
export interface PlanRequest {
  readonly id: string;
  /** The canonical model the client asked for. */
  readonly model: string;
  readonly principal?: Principal;
  readonly band: string;
  readonly tenant: string;
  readonly estimatedTokens: number;
  /** The replica `x-llmgw-replica` pins, when the caller may pin (stages/pin.ts): admission is asked for its pool only. */
  readonly pinnedReplica?: string;
  /** The request's client: its `signal` aborts when it goes away (an admission wait or an on-demand hold ends); read only for a wait. */
  readonly client: { readonly signal: AbortSignal };
}

/** The outcome of moving down the chain: the refusal met on the way, if any. */
export interface Advance {
  moved: boolean;
  /** The last fallback the key may not use or pay for, skipped on the way. */
  refused?: LlmgwError;
}

const usable = (v: EndpointView) => !v.draining && v.available;

/**
 * One request's serving decisions (docs/router.md, "The serving plan"): the
 * model chain and the cursor on it, the quota reservation and its rebinding
 * to whichever model is served, and the admission lease and its pool. Made
 * once per request (resolve model); the stages read it and advance it, and
 * nothing else changes the model being served.
 *
 * - `reserve`: reserves for the model (a spent budget may switch it to the
 *   budget fallback model) and builds the chain from the model reserved for,
 *   keeping only fallbacks the key may use;
 * - `admit`: the first model of the chain with a usable endpoint that the
 *   reservation can be rebound to is served; a lease is taken on one of its
 *   pools;
 * - `advance`: an availability fallback — the next model with an endpoint not
 *   yet tried; the reservation is rebound to it (skipped when the key may not
 *   use or pay for it) and the lease moved to one of its pools;
 * - `follow`: the endpoint picked is in a pool other than the lease's — the
 *   lease moves there;
 * - `finish`: the lease is released and the reservation settled against the
 *   model actually served, at its price.
 */
export class ServingPlan {
  private chain_: string[];
  private cursor = -1;
  private reservation_?: Reservation;
  private lease_?: Lease;
  private queuedMs?: number;
  private model_: string;
  /** The views `firstUsable` last read a usable endpoint in, so picking the pools does not build them again. */
  private seen?: { model: string; views: EndpointView[] };

  constructor(
    private readonly deps: PlanDeps,
    readonly request: PlanRequest,
  ) {
    this.model_ = request.model;
    this.chain_ = [request.model];
  }

  /** The model the request is for: the requested one, or the budget fallback model after `reserve`. */
  get model(): string {
    return this.model_;
  }

  /** The model being served once admitted; undefined before. */
  get served(): string | undefined {
    return this.cursor < 0 ? undefined : this.chain_[this.cursor];
  }

  /** `model` then the fallbacks the key may use. */
  get chain(): readonly string[] {
    return this.chain_;
  }

  /** Position of `served` in the chain (-1 before admission). */
  get position(): number {
    return this.cursor;
  }

  get reservation(): Reservation | undefined {
    return this.reservation_;
  }

  get lease(): Lease | undefined {
    return this.lease_;
  }

  /** Time spent waiting for admission, over every lease this request took. */
  get queueMs(): number | undefined {
    return this.queuedMs;
  }

  /** Reserves quota for the model; a spent budget may move the request to the budget fallback model. */
  async reserve(): Promise<void> {
    const r = this.request;
    this.reservation_ = await this.deps.tenancy.reserve(r.principal, r.model, r.estimatedTokens);
    this.model_ = this.reservation_.model;
    this.chain_ = permittedChain(this.deps.catalog, r.principal, this.model_);
  }

  /**
   * Picks the model to serve (the first of the chain with a usable endpoint and that the
   * reservation can be rebound to) and waits for an admission lease on its pools.
   */
  async admit(): Promise<void> {
    const { onDemand } = this.deps;
    const model = this.model_;
    let first = this.firstUsable(0);
    // On demand: the model itself has no replica yet. Ask for one; with no fallback to serve
    // meanwhile, hold briefly for it (throws model_loading when it does not come up in time).
    if (first !== 0 && onDemand?.isOnDemand(model)) {
      if (first > 0) onDemand.touch(model, true);
      else if (await onDemand.hold(model, () => this.deps.views(model).some(usable), this.request.client.signal)) first = this.firstUsable(0);
    }
    const step = first < 0 ? { moved: false } : await this.bindFrom(first);
    if (!step.moved) {
      if (step.refused) throw step.refused;
      const rest = this.chain_.length > 1 ? ` or its fallbacks (${this.chain_.slice(1).join(', ')})` : '';
      throw new LlmgwError('LLMGW_ERR_NO_ENDPOINT', `no usable endpoint serves ${model}${rest}`, {
        retryAfterSeconds: Math.max(1, this.deps.cfg.cooldown_seconds),
      });
    }
    onDemand?.touch(this.served!);
    await this.acquire(this.poolsOf(this.served!));
  }

  /**
   * An availability fallback: moves to the next model of the chain with an endpoint not in
   * `tried`, rebinds the reservation to it and moves the lease to its pools. `moved` is false
   * at the end of the chain.
   */
  async advance(tried: ReadonlySet<string>): Promise<Advance> {
    const next = this.firstUsable(this.cursor + 1, tried);
    if (next < 0) return { moved: false };
    const step = await this.bindFrom(next, tried);
    if (step.moved) await this.acquire(this.poolsOf(this.served!, tried));
    return step;
  }

  /** The endpoint picked is in `pool`: the lease moves there when it is on another one. */
  async follow(pool: string): Promise<void> {
    if (this.lease_?.pool === pool) return;
    await this.acquire([pool]);
  }

  /** Releases the lease and settles the reservation against the model served, at its price. */
  finish(outcome: LeaseOutcome, usage: PlanUsage | undefined, rec: UsageRecord): void {
    this.lease_?.release(outcome);
    const { tenancy } = this.deps;
    const r = this.reservation_;
    if (!r) return tenancy.recordUsage(rec);
    const settled = usage ? { ...usage, model: this.served ?? r.model } : undefined;
    if (tenancy.settleAndRecord) tenancy.settleAndRecord(r, settled, rec);
    else {
      tenancy.settle(r, settled);
      tenancy.recordUsage(rec);
    }
  }

  /** Index of the first model from `from` on with a usable endpoint outside `exclude`; -1 when none. */
  private firstUsable(from: number, exclude?: ReadonlySet<string>): number {
    for (let i = from; i < this.chain_.length; i++) {
      const model = this.chain_[i];
      const views = this.deps.views(model);
      if (views.some((v) => usable(v) && !exclude?.has(v.id))) {
        this.seen = { model, views };
        return i;
      }
    }
    return -1;
  }

  /**
   * Moves the cursor to the first servable model from index `from` whose reservation rebinds:
   * a model the key may not use or pay for is skipped like one without endpoints.
   */
  private async bindFrom(from: number, exclude?: ReadonlySet<string>): Promise<Advance> {
    let refused: LlmgwError | undefined;
    for (let i = from; i >= 0; i = this.firstUsable(i + 1, exclude)) {
      try {
        await this.rebind(this.chain_[i]);
      } catch (e) {
        if (!isLlmgwError(e)) throw e;
        refused = e;
        continue;
      }
      this.cursor = i;
      return { moved: true, refused };
    }
    return { moved: false, refused };
  }

  private async rebind(model: string): Promise<void> {
    const r = this.reservation_;
    const rebind = this.deps.tenancy.rebind;
    if (!r || r.model === model || !rebind) return;
    this.reservation_ = await rebind.call(this.deps.tenancy, r, model);
  }

  /** The pools with a usable endpoint of `model`, highest priority first. */
  private poolsOf(model: string, exclude?: ReadonlySet<string>): string[] {
    const views = this.seen?.model === model ? this.seen.views : this.deps.views(model);
    this.seen = undefined;
    const vs = views.filter((v) => usable(v) && !exclude?.has(v.id));
    // A pinned replica is reachable only inside its own pool: admission must not grant another one.
    const pinned = vs.find((v) => v.id === this.request.pinnedReplica);
    if (pinned) return [pinned.pool];
    vs.sort((a, b) => b.poolPriority - a.poolPriority);
    return [...new Set(vs.map((v) => v.pool))];
  }

  /** Releases the lease held (if any) and waits for one on `candidatePools` for the served model. */
  private async acquire(candidatePools: string[]): Promise<void> {
    const r = this.request;
    // Released first: waiting for a second slot while holding one could starve both pools.
    this.lease_?.release();
    this.lease_ = undefined;
    const now = this.deps.now ?? Date.now;
    const req = {
      requestId: r.id,
      band: r.band,
      tenant: r.tenant,
      model: this.served!,
      candidatePools,
      estimatedTokens: r.estimatedTokens,
      deadlineMs: now() + this.deps.cfg.admission.queue_ttl,
    };
    // Admitted at once (a credit) needs no signal: it is made only for a request that may wait.
    const acq = this.deps.admission.grantNow?.(req) ?? (await this.deps.admission.acquire(req, r.client.signal));
    this.queuedMs = (this.queuedMs ?? 0) + acq.queuedMs;
    if (acq.kind === 'granted') {
      this.lease_ = acq.lease;
      return;
    }
    if (acq.reason === 'client_gone') throw new LlmgwError('LLMGW_ERR_ADMISSION_CANCELLED', acq.message);
    const code: ErrorCode =
      acq.reason === 'ttl' ? 'LLMGW_ERR_ADMISSION_TTL' : acq.reason === 'displaced' ? 'LLMGW_ERR_ADMISSION_DISPLACED' : 'LLMGW_ERR_ADMISSION_QUEUE_FULL';
    throw new LlmgwError(code, acq.message, { retryAfterSeconds: acq.retryAfterSeconds ?? (acq.reason === 'ttl' ? undefined : 1) });
  }
}

import type { Principal } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { inSpan, type Logger } from '@llmgw/observability';
import { MemoryLimitCounters, type CounterReservation, type LimitCounters, type WindowHeadroom } from '@llmgw/stores';
import { costMicros, isFree, isModelAllowed, periodBounds, type ModelPrice } from '@llmgw/tenancy';
import { rateLimitHeaders } from './rate-headers';
import type { TenancyMetrics } from './metrics';
import type { Reservation, TenancyConfig } from './types';

/** A reservation as tenancy holds it: the counters it is on and what it reserved there. */
export interface HeldReservation extends Reservation {
  model: string;
  principal: Principal;
  counters: LimitCounters;
  inner: CounterReservation;
  /** The reserved model was free: `inner` holds no budgets. */
  free: boolean;
  /** The token estimate reserved (a budget hold taken later is sized from it). */
  tokens: number;
  /** Budgets reserved when a free reservation moved to a paid fallback (rebind). */
  budgetHold?: CounterReservation;
  rateLimitHeaders?: Record<string, string>;
}

/** Tokens the engine reported and the model that served them. */
export type ServedUsage = { promptTokens: number; completionTokens: number; model: string } | undefined;

const LIMIT_CODES = { rpm: 'LLMGW_ERR_RATE_LIMIT_RPM', tpm: 'LLMGW_ERR_RATE_LIMIT_TPM', budget: 'LLMGW_ERR_BUDGET_EXCEEDED' } as const;

type Refusal = Extract<Awaited<ReturnType<LimitCounters['reserve']>>, { ok: false }>;

export interface QuotaOptions {
  cfg: TenancyConfig['tenancy'];
  /** The shared counters (Redis or in-process). */
  counters: LimitCounters;
  now: () => number;
  metrics: Pick<TenancyMetrics, 'rejected' | 'budgetFallbacks' | 'degraded'>;
  log: Logger;
  logFailure(obj: object, msg: string): void;
}

/**
 * The key's limits on one request: the allowlist; RPM, TPM and budgets of
 * every scope on the key's chain checked and reserved in one counter call
 * (local counters while the shared ones are unreachable); the budget fallback
 * model when a budget is spent; rebinding to an availability fallback; and
 * settling at the price of the model that served.
 */
export class Quota {
  /** Redis down: single-router behaviour with local counters, flagged as degraded. */
  private readonly local = new MemoryLimitCounters();

  constructor(private readonly o: QuotaOptions) {}

  priceOf(model: string): ModelPrice | undefined {
    const p = this.o.cfg.prices[model] ?? this.o.cfg.default_price;
    return p ? { promptPerMTok: p.prompt_per_mtok, completionPerMTok: p.completion_per_mtok } : undefined;
  }

  async reserve(p: Principal | undefined, model: string, estimatedTokens: number): Promise<HeldReservation> {
    if (!p) throw new LlmgwError('LLMGW_ERR_AUTH_MISSING', 'an API key is required');
    if (!isModelAllowed(p.limits, model)) throw this.notAllowed('model', model);
    const tokens = Math.max(0, Math.ceil(estimatedTokens));
    const r = await this.reserveWithFallback(p, model, tokens);
    const id = `${p.keyId}:${this.o.now()}:${Math.random().toString(36).slice(2)}`;
    return { id, model: r.model, principal: p, counters: r.counters, inner: r.inner, free: r.free, tokens, rateLimitHeaders: r.headers };
  }

  async rebind(h: HeldReservation, model: string): Promise<HeldReservation> {
    if (h.model === model) return h;
    const p = h.principal;
    if (!isModelAllowed(p.limits, model)) throw this.notAllowed('fallback model', model);
    // A reservation made for a free model holds no budgets: a paid fallback must reserve them
    // now (and is refused when they are spent), or it would be served without being charged.
    if (h.free && !h.budgetHold && !isFree(this.priceOf(model))) {
      const again = await this.reserveOn(h.counters, p, model, h.tokens, this.o.now(), true);
      if (!again.r.ok) throw this.limitError(again.r, again.micros, h.tokens);
      h.budgetHold = again.r.reservation;
    }
    h.model = model;
    return h;
  }

  /** What a request really used: tokens, and micro-units at the price of the model that served (free models cost 0). */
  actualOf(usage: ServedUsage): { tokens: number; micros: number } {
    if (!usage) return { tokens: 0, micros: 0 };
    return { tokens: usage.promptTokens + usage.completionTokens, micros: costMicros(this.priceOf(usage.model), usage.promptTokens, usage.completionTokens) };
  }

  settle(h: HeldReservation, usage: ServedUsage): void {
    if (!h.inner) return;
    const { tokens, micros } = this.actualOf(usage);
    const warn = (e: unknown) => this.o.log.warn({ err: (e as Error).message }, 'settling a reservation failed');
    const now = this.o.now();
    if (h.budgetHold) {
      void h.counters.settle(h.inner, { tokens, micros: 0 }, now).catch(warn);
      void h.counters.settle(h.budgetHold, { tokens: 0, micros }, now).catch(warn);
    } else {
      void h.counters.settle(h.inner, { tokens, micros }, now).catch(warn);
    }
  }

  private notAllowed(what: 'model' | 'fallback model', model: string): LlmgwError {
    this.o.metrics.rejected.inc({ reason: 'model' });
    return new LlmgwError('LLMGW_ERR_MODEL_NOT_ALLOWED', `This key may not use the ${what} \`${model}\`.`, { param: 'model' });
  }

  /** Reserves on the key's scopes; `budgetsOnly` leaves RPM and TPM alone (they are already held). */
  private async reserveOn(counters: LimitCounters, p: Principal, model: string, tokens: number, at: number, budgetsOnly = false) {
    const price = this.priceOf(model);
    const free = isFree(price);
    // Upper bound: every estimated token at the dearer of the two prices.
    const micros = free ? 0 : Math.ceil(Math.max(price!.promptPerMTok, price!.completionPerMTok) * tokens);
    const budgets = free ? [] : p.limits.budgets.map((b) => ({ scope: b.scope, limitMicros: b.limitMicros, ...periodStartEnd(b.period, at) }));
    const r = await inSpan('tenancy.counters.reserve', { 'llmgw.model': model, 'llmgw.budgets_only': budgetsOnly }, () =>
      counters.reserve({
        nowMs: at,
        rpm: budgetsOnly ? [] : p.limits.rpm,
        tpm: budgetsOnly ? [] : p.limits.tpm,
        tokens: budgetsOnly ? 0 : tokens,
        budgets,
        micros,
      }),
    );
    return { r, free, micros };
  }

  private limitError(no: Refusal, micros: number, tokens: number): LlmgwError {
    this.o.metrics.rejected.inc({ reason: no.kind });
    const what =
      no.kind === 'budget'
        ? micros > no.limit
          ? `this request's worst-case cost (${micros} micro-units for max_tokens + prompt) exceeds the ${no.scope} budget of ${no.limit}; lower max_tokens`
          : `the ${no.scope} budget of ${no.limit} micro-units is spent for this period`
        : no.kind === 'tpm' && tokens > no.limit
          ? `this request's ${tokens} tokens (max_tokens + prompt estimate) exceed the ${no.scope} limit of ${no.limit} tokens per minute; lower max_tokens`
          : `the ${no.scope} limit of ${no.limit} ${no.kind === 'rpm' ? 'requests' : 'tokens'} per minute is reached`;
    const full = { limit: no.limit, remaining: 0, resetMs: no.retryAfterMs };
    const headers = no.kind === 'rpm' ? rateLimitHeaders(full, undefined) : no.kind === 'tpm' ? rateLimitHeaders(undefined, full) : undefined;
    return new LlmgwError(LIMIT_CODES[no.kind], `Rate limit reached: ${what}.`, { retryAfterSeconds: Math.max(1, Math.ceil(no.retryAfterMs / 1000)), headers });
  }

  private async reserveWithFallback(
    p: Principal,
    model: string,
    tokens: number,
  ): Promise<{ counters: LimitCounters; model: string; inner: CounterReservation; free: boolean; headers?: Record<string, string> }> {
    const at = this.o.now();
    let counters: LimitCounters = this.o.counters;
    let attempt;
    try {
      attempt = await this.reserveOn(counters, p, model, tokens, at);
      this.o.metrics.degraded.set(0);
    } catch (e) {
      this.o.metrics.degraded.set(1);
      this.o.logFailure({ err: (e as Error).message }, 'shared limit counters unreachable; counting locally');
      counters = this.local;
      attempt = await this.reserveOn(counters, p, model, tokens, at);
    }
    if (attempt.r.ok) return { counters, model, inner: attempt.r.reservation, free: attempt.free, headers: headersOf(attempt.r) };
    const no = attempt.r;
    const fb = this.o.cfg.budget_fallback_model;
    if (no.kind === 'budget' && fb && fb !== model && isFree(this.priceOf(fb)) && isModelAllowed(p.limits, fb)) {
      const again = await this.reserveOn(counters, p, fb, tokens, at);
      if (again.r.ok) {
        this.o.metrics.budgetFallbacks.inc();
        return { counters, model: fb, inner: again.r.reservation, free: true, headers: headersOf(again.r) };
      }
    }
    throw this.limitError(no, attempt.micros, tokens);
  }
}

function headersOf(r: { requests?: WindowHeadroom; tokens?: WindowHeadroom }): Record<string, string> | undefined {
  return r.requests || r.tokens ? rateLimitHeaders(r.requests, r.tokens) : undefined;
}

export function periodStartEnd(period: 'day' | 'month', at: number): { periodStart: number; periodEnd: number } {
  const b = periodBounds(period, at);
  return { periodStart: b.start, periodEnd: b.end };
}

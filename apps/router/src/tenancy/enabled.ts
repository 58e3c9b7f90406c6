import { AccountingClient, principalFromWire } from '@llmgw/accounting-rpc';
import type { RouterConfig } from '@llmgw/config';
import type { Principal, UsageRecord } from '@llmgw/contracts';
import { LlmgwError, toHttpError } from '@llmgw/errors';
import { inSpan, requestIdFrom } from '@llmgw/observability';
import {
  type AccountingStores,
  type CounterReservation,
  type LedgerRecord,
  type LimitCounters,
  MemoryLimitCounters,
  type WindowHeadroom,
  inProcessAccountingStores,
  principalOfRecord,
  redisAccountingStores,
} from '@llmgw/stores';
import {
  type ModelPrice,
  bearerToken,
  costMicros,
  effectiveLimits,
  hashApiKey,
  isFree,
  isModelAllowed,
  periodBounds,
} from '@llmgw/tenancy';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { clientTls } from '@llmgw/service';
import { Counter, Gauge } from 'prom-client';
import { DurableEnds } from './durable-end';
import { KeyCache } from './key-cache';
import { KeyResolution } from './key-resolution';
import { rateLimitHeaders } from './rate-headers';
import type { Reservation, TenancyDeps, TenancyHooks } from './index';

interface HeldReservation extends Reservation {
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

/** Seams for tests: stores and resolver instead of what config describes, and a clock. */
export interface TenancyOverrides {
  stores?: AccountingStores;
  resolve?: (keyHash: string) => Promise<Principal>;
  now?: () => number;
}

/** First wait before a key whose refresh failed is refreshed again; doubles per failure up to the max. */
const RESOLVE_RETRY_MS = 1_000;
const RESOLVE_MAX_RETRY_MS = 4_000;
/** Longest a published-record read may take (Redis may be down too). */
const RECORD_TIMEOUT_MS = 500;

const LIMIT_CODES = { rpm: 'LLMGW_ERR_RATE_LIMIT_RPM', tpm: 'LLMGW_ERR_RATE_LIMIT_TPM', budget: 'LLMGW_ERR_BUDGET_EXCEEDED' } as const;

/**
 * Tenancy on (docs/accounting.md): bearer key → SHA-256 → in-memory cache (read
 * through to accounting on a miss, revalidated in the background when stale,
 * dropped on invalidation; the key's published record while accounting cannot
 * answer: key-resolution.ts, docs/accounting.md); one counter
 * call (a single Lua script on Redis) checks and reserves RPM, TPM and
 * budgets along the chain; settle on completion; usage records appended to
 * the ledger. Without Redis, the process-wide in-process stores are used.
 */
export function createEnabledTenancy(cfg: RouterConfig, deps: TenancyDeps, over: TenancyOverrides = {}): TenancyHooks & { allowReplicaPin(p: Principal): boolean; ready: Promise<void> } {
  const t = cfg.tenancy;
  const log = deps.log;
  const now = over.now ?? Date.now;
  const redis: Redis | undefined = over.stores ? undefined : deps.redis;
  let stores = over.stores;
  if (!stores) {
    if (t.redis_url) {
      if (!redis) throw new Error('tenancy.redis_url is set but the router was given no Redis client for it (the service host opens it)');
      stores = redisAccountingStores(redis, t.key_prefix, { ledgerMaxLen: t.stream_max_len, log, open: deps.openRedis });
    } else {
      stores = inProcessAccountingStores(t.embedded_stores);
    }
  }
  // While Redis is away the host has logged it once (dependency lost); each failed call is detail.
  const logFailure = (obj: object, msg: string) => (redis && redis.status !== 'ready' ? log.debug(obj, msg) : log.warn(obj, msg));
  const s = stores;
  // Redis down: single-router behaviour with local counters, flagged as degraded.
  const local = new MemoryLimitCounters();
  const cache = new KeyCache(t.cache_ttl, t.negative_cache_ttl);
  const holdTimeouts = new Counter({
    name: 'llmgw_usage_durable_hold_timeouts_total',
    help: 'Responses whose final bytes were released by the durable-usage hold timeout before their usage record reached the ledger.',
    registers: [deps.registry],
  });
  const ends = new DurableEnds(5_000, () => holdTimeouts.inc());
  const tls = clientTls(t.accounting_tls, 'tenancy.accounting_tls');
  const resolver = over.resolve ? undefined : t.accounting_address ? new AccountingClient({ address: t.accounting_address, tls, dependency: deps.dependency?.('accounting', { address: t.accounting_address }) }) : undefined;
  if (!over.resolve && !resolver) throw new Error('tenancy.enabled needs tenancy.accounting_address (the accounting KeyResolver)');
  const resolveWire = over.resolve ?? (async (hash: string) => principalFromWire(await resolver!.resolveKey(hash, { deadlineMs: t.resolve_timeout }), cfg.default_band));

  const cacheCounter = new Counter({ name: 'llmgw_key_cache_total', help: 'API key lookups by result (hit, negative, miss, stale: served while revalidated, record: from the published record, unverified: 503 while accounting is unreachable).', labelNames: ['result'], registers: [deps.registry] });
  const resolveCounter = new Counter({ name: 'llmgw_key_resolve_total', help: 'ResolveKey calls to accounting, by result (ok, not_found, failed).', labelNames: ['result'], registers: [deps.registry] });
  const published = s.publishedKeys;
  const keys = new KeyResolution({
    cache,
    resolve: resolveWire,
    // Read only when accounting cannot answer (docs/accounting.md, "When accounting is unreachable").
    published: published
      ? async (hash) => {
          try {
            const rec = await withTimeout(published.get(hash), Math.min(t.resolve_timeout, RECORD_TIMEOUT_MS));
            return rec ? principalOfRecord(rec, cfg.default_band) : undefined;
          } catch (e) {
            logFailure({ err: (e as Error).message }, 'published key record unreadable');
            return undefined;
          }
        }
      : undefined,
    now,
    retryMs: RESOLVE_RETRY_MS,
    maxRetryMs: RESOLVE_MAX_RETRY_MS,
    onLookup: (result) => cacheCounter.inc({ result }),
    onResolve: (result) => resolveCounter.inc({ result }),
  });
  const rejected = new Counter({ name: 'llmgw_tenancy_rejected_total', help: 'Requests refused by tenancy, by reason (auth, model, rpm, tpm, budget).', labelNames: ['reason'], registers: [deps.registry] });
  const fallbacks = new Counter({ name: 'llmgw_budget_fallback_total', help: 'Requests served by the budget fallback model.', registers: [deps.registry] });
  const degraded = new Gauge({ name: 'llmgw_tenancy_degraded', help: '1 while limits are counted locally because Redis is unreachable (per-router, not shared).', registers: [deps.registry] });
  const buffered: LedgerRecord[] = [];
  new Gauge({ name: 'llmgw_usage_ledger_buffered', help: 'Usage records held in memory because the ledger was unreachable.', registers: [deps.registry], collect() { this.set(buffered.length); } });
  const dropped = new Counter({ name: 'llmgw_usage_ledger_dropped_total', help: 'Usage records dropped because the in-memory buffer was full.', registers: [deps.registry] });

  const ready = (async () => {
    try {
      await s.keyCacheBus.subscribe((ev) => {
        const n = cache.invalidate(ev);
        if (n) log.debug({ ev, dropped: n }, 'key cache invalidated');
      });
    } catch (e) {
      log.warn({ err: (e as Error).message }, 'key-cache invalidation subscription failed; relying on cache_ttl');
    }
  })();

  const priceOf = (model: string): ModelPrice | undefined => {
    const p = t.prices[model] ?? t.default_price;
    return p ? { promptPerMTok: p.prompt_per_mtok, completionPerMTok: p.completion_per_mtok } : undefined;
  };

  const lookup = (hash: string) => keys.lookup(hash);

  async function authenticate(authorization: string | undefined): Promise<Principal> {
    const token = bearerToken(authorization);
    if (!token) {
      rejected.inc({ reason: 'auth' });
      throw new LlmgwError('LLMGW_ERR_AUTH_MISSING', 'You didn\'t provide an API key. Send "Authorization: Bearer sk-llmgw-…".');
    }
    await ready;
    const p = await lookup(hashApiKey(token));
    if (!p || (p.expiresAt !== undefined && p.expiresAt <= now())) {
      rejected.inc({ reason: 'auth' });
      throw new LlmgwError('LLMGW_ERR_AUTH_INVALID', 'Incorrect API key provided (unknown, revoked or expired).');
    }
    return p;
  }

  /** Reserves on the key's scopes; `budgetsOnly` leaves RPM and TPM alone (they are already held). */
  async function reserveOn(counters: LimitCounters, p: Principal, model: string, tokens: number, at: number, budgetsOnly = false) {
    const price = priceOf(model);
    const free = isFree(price);
    // Upper bound: every estimated token at the dearer of the two prices.
    const micros = free ? 0 : Math.ceil(Math.max(price!.promptPerMTok, price!.completionPerMTok) * tokens);
    const budgets = free ? [] : p.limits.budgets.map((b) => ({ scope: b.scope, limitMicros: b.limitMicros, ...periodStartEnd(b.period, at) }));
    const r = await inSpan('tenancy.counters.reserve', { 'llmgw.model': model, 'llmgw.budgets_only': budgetsOnly }, () =>
      counters.reserve({ nowMs: at, rpm: budgetsOnly ? [] : p.limits.rpm, tpm: budgetsOnly ? [] : p.limits.tpm, tokens: budgetsOnly ? 0 : tokens, budgets, micros }),
    );
    return { r, free, micros };
  }

  function limitError(no: Extract<Awaited<ReturnType<LimitCounters['reserve']>>, { ok: false }>, micros: number, tokens: number): LlmgwError {
    rejected.inc({ reason: no.kind });
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

  async function reserveWithFallback(p: Principal, model: string, tokens: number): Promise<{ counters: LimitCounters; model: string; inner: CounterReservation; free: boolean; headers?: Record<string, string> }> {
    const at = now();
    let counters: LimitCounters = s.counters;
    let attempt;
    try {
      attempt = await reserveOn(counters, p, model, tokens, at);
      degraded.set(0);
    } catch (e) {
      degraded.set(1);
      logFailure({ err: (e as Error).message }, 'shared limit counters unreachable; counting locally');
      counters = local;
      attempt = await reserveOn(counters, p, model, tokens, at);
    }
    if (attempt.r.ok) return { counters, model, inner: attempt.r.reservation, free: attempt.free, headers: headersOf(attempt.r) };
    const no = attempt.r;
    const fb = t.budget_fallback_model;
    if (no.kind === 'budget' && fb && fb !== model && isFree(priceOf(fb)) && isModelAllowed(p.limits, fb)) {
      const again = await reserveOn(counters, p, fb, tokens, at);
      if (again.r.ok) {
        fallbacks.inc();
        return { counters, model: fb, inner: again.r.reservation, free: true, headers: headersOf(again.r) };
      }
    }
    throw limitError(no, attempt.micros, tokens);
  }

  /** What a request really used: tokens, and micro-units at the price of the model that served (free models cost 0). */
  function actualOf(usage: { promptTokens: number; completionTokens: number; model: string } | undefined): { tokens: number; micros: number } {
    if (!usage) return { tokens: 0, micros: 0 };
    return { tokens: usage.promptTokens + usage.completionTokens, micros: costMicros(priceOf(usage.model), usage.promptTokens, usage.completionTokens) };
  }

  function settle(res: Reservation, usage: { promptTokens: number; completionTokens: number; model: string } | undefined): void {
    const h = res as HeldReservation;
    if (!h.inner) return;
    const { tokens, micros } = actualOf(usage);
    const warn = (e: unknown) => log.warn({ err: (e as Error).message }, 'settling a reservation failed');
    if (h.budgetHold) {
      void h.counters.settle(h.inner, { tokens, micros: 0 }, now()).catch(warn);
      void h.counters.settle(h.budgetHold, { tokens: 0, micros }, now()).catch(warn);
    } else {
      void h.counters.settle(h.inner, { tokens, micros }, now()).catch(warn);
    }
  }

  function ledgerRecord(rec: UsageRecord): LedgerRecord {
    return { ...rec, recordId: randomUUID(), costMicros: costMicros(priceOf(rec.servedModel), rec.promptTokens, rec.completionTokens) };
  }

  /**
   * Waits for `write` (the record's append), then lets the response's held end go; a failed
   * write keeps the record in memory for the retry loop (`alsoFailed` is told first).
   */
  function appending(full: LedgerRecord, write: Promise<unknown>, alsoFailed?: (e: unknown) => void): void {
    pending++;
    write.then(
      () => {
        pending--;
        ends.release(full.requestId);
      },
      (e) => {
        pending--;
        alsoFailed?.(e);
        if (buffered.length >= t.ledger_buffer) dropped.inc();
        else buffered.push(full);
        logFailure({ err: (e as Error).message, buffered: buffered.length }, 'usage ledger unreachable; record kept in memory');
        ends.release(full.requestId);
      },
    );
  }

  function recordUsage(rec: UsageRecord): void {
    if (rec.keyId === 'anonymous') {
      ends.release(rec.requestId);
      return;
    }
    const full = ledgerRecord(rec);
    appending(full, s.ledger.append(full));
  }

  let pending = 0;
  async function flushBuffer(): Promise<void> {
    while (buffered.length) {
      await s.ledger.append(buffered[0]);
      buffered.shift();
    }
  }
  const retryTimer = setInterval(() => {
    if (buffered.length) void flushBuffer().catch(() => {});
  }, 1000);
  retryTimer.unref();

  return {
    enabled: true,
    ready,
    authenticate,

    async reserve(p, model, estimatedTokens) {
      if (!p) throw new LlmgwError('LLMGW_ERR_AUTH_MISSING', 'an API key is required');
      if (!isModelAllowed(p.limits, model)) {
        rejected.inc({ reason: 'model' });
        throw new LlmgwError('LLMGW_ERR_MODEL_NOT_ALLOWED', `This key may not use the model \`${model}\`.`, { param: 'model' });
      }
      const r = await reserveWithFallback(p, model, Math.max(0, Math.ceil(estimatedTokens)));
      const held: HeldReservation = { id: `${p.keyId}:${now()}:${Math.random().toString(36).slice(2)}`, model: r.model, principal: p, counters: r.counters, inner: r.inner, free: r.free, tokens: Math.max(0, Math.ceil(estimatedTokens)), rateLimitHeaders: r.headers };
      return held;
    },

    async rebind(res, model) {
      const h = res as HeldReservation;
      if (h.model === model) return h;
      const p = h.principal;
      if (!isModelAllowed(p.limits, model)) {
        rejected.inc({ reason: 'model' });
        throw new LlmgwError('LLMGW_ERR_MODEL_NOT_ALLOWED', `This key may not use the fallback model \`${model}\`.`, { param: 'model' });
      }
      // A reservation made for a free model holds no budgets: a paid fallback must reserve them
      // now (and is refused when they are spent), or it would be served without being charged.
      if (h.free && !h.budgetHold && !isFree(priceOf(model))) {
        const again = await reserveOn(h.counters, p, model, h.tokens, now(), true);
        if (!again.r.ok) throw limitError(again.r, again.micros, h.tokens);
        h.budgetHold = again.r.reservation;
      }
      h.model = model;
      return h;
    },

    settle,
    recordUsage,

    settleAndRecord(res, usage, rec) {
      const h = res as HeldReservation;
      // One round trip when the reservation is on the shared counters and settles in one call.
      if (!s.settleAndAppend || !h.inner || h.budgetHold || h.counters !== s.counters || rec.keyId === 'anonymous') {
        settle(res, usage);
        recordUsage(rec);
        return;
      }
      const full = ledgerRecord(rec);
      const { tokens, micros } = actualOf(usage);
      appending(
        full,
        s.settleAndAppend(h.inner, { tokens, micros }, now(), full),
        (e) => log.warn({ err: (e as Error).message }, 'settling a reservation failed'),
      );
    },

    allowReplicaPin() {
      return t.allow_replica_pin;
    },

    registerRoutes(app: FastifyInstance) {
      if (t.durable_usage) {
        // preHandler, not onRequest: requests refused before the handler (body too large,
        // bad content type, unknown route) never reach recordUsage and must not be held.
        app.addHook('preHandler', async (req, reply) => {
          if (req.method !== 'POST' || !req.routeOptions.url?.startsWith('/v1/')) return;
          // Fix the request id now (the router reuses x-request-id) so the held end can be matched to its record.
          const id = requestIdFrom(req.raw.headers['x-request-id'] as string | undefined);
          req.raw.headers['x-request-id'] = id;
          ends.track(id, reply.raw);
        });
      }
      app.get('/me', async (req, reply) => {
        try {
          const p = await authenticate(req.headers.authorization);
          const at = now();
          const scopes = [...new Set([...p.limits.rpm, ...p.limits.tpm].map((x) => x.scope))];
          const windows = Object.fromEntries(await Promise.all(scopes.map(async (sc) => [sc, await s.counters.windowUsage(sc, at).catch(() => undefined)] as const)));
          const budgets = await Promise.all(
            p.limits.budgets.map(async (b) => {
              const pe = periodStartEnd(b.period, at);
              return { scope: b.scope, period: b.period, limit_micros: b.limitMicros, spent_micros: await s.counters.budgetSpent(b.scope, pe.periodStart).catch(() => null), resets_at: new Date(pe.periodEnd).toISOString() };
            }),
          );
          const eff = effectiveLimits(p.limits);
          return reply.send({
            object: 'llmgw.key',
            key_id: p.keyId, key_prefix: p.keyPrefix, project_id: p.projectId, team_id: p.teamId, org_id: p.orgId,
            band: p.band, routing_profile: p.routingProfile ?? null, expires_at: p.expiresAt ? new Date(p.expiresAt).toISOString() : null,
            allowed_models: p.limits.allowedModels ?? null,
            effective: { rpm: eff.rpm ?? null, tpm: eff.tpm ?? null, budget_micros_per_day: eff.budgetMicrosPerDay ?? null, budget_micros_per_month: eff.budgetMicrosPerMonth ?? null },
            limits: {
              rpm: p.limits.rpm.map((x) => ({ scope: x.scope, limit: x.limit, used: windows[x.scope]?.requests ?? null })),
              tpm: p.limits.tpm.map((x) => ({ scope: x.scope, limit: x.limit, used: windows[x.scope]?.tokens ?? null })),
            },
            budgets,
          });
        } catch (e) {
          const h = toHttpError(e);
          return reply.code(h.status).headers(h.headers).send(h.body);
        }
      });
    },

    async close() {
      clearInterval(retryTimer);
      for (let i = 0; i < 50 && pending > 0; i++) await new Promise((r) => setTimeout(r, 20));
      await flushBuffer().catch((e) => log.warn({ err: (e as Error).message, lost: buffered.length }, 'usage records could not be written to the ledger at shutdown'));
      resolver?.close();
      // The Redis client itself is the host's: it closes after this.
      if (!over.stores && redis) {
        await s.keyCacheBus.close().catch(() => {});
        await s.ledger.close().catch(() => {});
      }
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

function headersOf(r: { requests?: WindowHeadroom; tokens?: WindowHeadroom }): Record<string, string> | undefined {
  return r.requests || r.tokens ? rateLimitHeaders(r.requests, r.tokens) : undefined;
}

function periodStartEnd(period: 'day' | 'month', at: number): { periodStart: number; periodEnd: number } {
  const b = periodBounds(period, at);
  return { periodStart: b.start, periodEnd: b.end };
}

import { Counter, Gauge, type Registry } from 'prom-client';

/** Tenancy's metrics on the router's registry. */
export function createTenancyMetrics(registry: Registry, buffered: () => number) {
  return {
    holdTimeouts: new Counter({
      name: 'llmgw_usage_durable_hold_timeouts_total',
      help: 'Responses whose final bytes were released by the durable-usage hold timeout before their usage record reached the ledger.',
      registers: [registry],
    }),
    keyCache: new Counter({
      name: 'llmgw_key_cache_total',
      help: 'API key lookups by result (hit, negative, miss, stale: served while revalidated, record: from the published record, unverified: 503 while accounting is unreachable).',
      labelNames: ['result'],
      registers: [registry],
    }),
    keyResolve: new Counter({
      name: 'llmgw_key_resolve_total',
      help: 'ResolveKey calls to accounting, by result (ok, not_found, failed).',
      labelNames: ['result'],
      registers: [registry],
    }),
    rejected: new Counter({
      name: 'llmgw_tenancy_rejected_total',
      help: 'Requests refused by tenancy, by reason (auth, model, rpm, tpm, budget).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    budgetFallbacks: new Counter({ name: 'llmgw_budget_fallback_total', help: 'Requests served by the budget fallback model.', registers: [registry] }),
    degraded: new Gauge({
      name: 'llmgw_tenancy_degraded',
      help: '1 while limits are counted locally because Redis is unreachable (per-router, not shared).',
      registers: [registry],
    }),
    buffered: new Gauge({
      name: 'llmgw_usage_ledger_buffered',
      help: 'Usage records held in memory because the ledger was unreachable.',
      registers: [registry],
      collect() {
        this.set(buffered());
      },
    }),
    dropped: new Counter({
      name: 'llmgw_usage_ledger_dropped_total',
      help: 'Usage records dropped because the in-memory buffer was full.',
      registers: [registry],
    }),
  };
}

export type TenancyMetrics = ReturnType<typeof createTenancyMetrics>;

import type { LeaseStats } from '@llmgw/stores';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS } from '@llmgw/observability';

/** Tenancy's metrics on the router's registry. */
export function createTenancyMetrics(registry: Registry, buffered: () => number) {
  let leases: LeaseStats | undefined;
  const seen = { local: 0, remote: 0, grants: 0, returns: 0 };
  return {
    /** Reports counter-lease activity from these running totals when scraped. */
    watchLeases(stats: LeaseStats) {
      leases = stats;
    },
    counterPath: new Counter({
      name: 'llmgw_tenancy_counter_admissions_total',
      help: 'Requests past the limit counters, by path (lease: admitted from a local counter lease; shared: waited on a shared-counter call).',
      labelNames: ['path'],
      registers: [registry],
      collect() {
        if (!leases) return;
        this.inc({ path: 'lease' }, leases.local - seen.local);
        this.inc({ path: 'shared' }, leases.remote - seen.remote);
        seen.local = leases.local;
        seen.remote = leases.remote;
      },
    }),
    leaseCalls: new Counter({
      name: 'llmgw_tenancy_leases_total',
      help: 'Counter leases, by event (granted: taken from the shared counters; returned: an unused part given back).',
      labelNames: ['event'],
      registers: [registry],
      collect() {
        if (!leases) return;
        this.inc({ event: 'granted' }, leases.grants - seen.grants);
        this.inc({ event: 'returned' }, leases.returns - seen.returns);
        seen.grants = leases.grants;
        seen.returns = leases.returns;
      },
    }),
    holdTimeouts: new Counter({
      name: 'llmgw_usage_durable_hold_timeouts_total',
      help: 'Responses whose final bytes were released by the durable-usage hold timeout before their usage record reached the ledger.',
      registers: [registry],
    }),
    holdWait: new Histogram({
      name: 'llmgw_usage_durable_hold_seconds',
      help: "How long a finished response's final bytes waited for its usage record to reach the ledger (durable_usage).",
      buckets: LATENCY_BUCKETS,
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

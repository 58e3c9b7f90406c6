import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS } from '@llmgw/observability';

/** How one request to a provider ended (llmgw_provider_requests_total's `outcome`). */
export type ProviderOutcome = 'ok' | 'client_error' | 'error' | 'overloaded' | 'timeout' | 'connect' | 'cut' | 'client_gone';

/**
 * A provider's health as its answers show it (docs/models.md, "Providers"): requests by outcome
 * (its error rate) and time to its first byte (its latency). Labelled by the catalog model only.
 */
export function createProviderMetrics(registry: Registry, inflight: () => Iterable<[provider: string, n: number]>) {
  const reg = { registers: [registry] };
  return {
    requests: new Counter({
      name: 'llmgw_provider_requests_total',
      help: "Requests sent to an external provider, by the provider's catalog model and outcome.",
      labelNames: ['provider', 'outcome'],
      ...reg,
    }),
    ttfb: new Histogram({
      name: 'llmgw_provider_ttfb_seconds',
      help: "Time from sending a request to an external provider to its answer's first byte.",
      labelNames: ['provider'],
      buckets: LATENCY_BUCKETS,
      ...reg,
    }),
    inflight: new Gauge({
      name: 'llmgw_provider_inflight',
      help: 'Requests this router has in flight to the external provider (at most its max_concurrency).',
      labelNames: ['provider'],
      ...reg,
      collect() {
        this.reset();
        for (const [provider, n] of inflight()) this.set({ provider }, n);
      },
    }),
  };
}

export type ProviderMetrics = ReturnType<typeof createProviderMetrics>;

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS } from '@llmgw/observability';

/** Values read when /metrics is scraped rather than on the request path. */
export interface MetricSources {
  inflight(): Iterable<[replica: string, n: number]>;
  /** Per replica: requests waiting for an upstream connection, and connections open. */
  upstreamPools(): Iterable<[replica: string, s: { waiting: number; connections: number }]>;
  scores(): Iterable<[replica: string, s: { total: number; perScorer: Record<string, number> }]>;
  endpointCacheStale(): boolean;
}

/** The router's metrics (docs/router.md, "Metrics"); names and labels are the contract. */
export function createRouterMetrics(registry: Registry, src: MetricSources) {
  const reg = { registers: [registry] };
  return {
    requests: new Counter({
      name: 'llmgw_requests_total',
      help: 'Client requests by served model, pool and HTTP status.',
      labelNames: ['model', 'pool', 'status'],
      ...reg,
    }),
    duration: new Histogram({
      name: 'llmgw_request_duration_seconds',
      help: 'Request duration, arrival to last byte.',
      labelNames: ['model', 'pool'],
      buckets: LATENCY_BUCKETS,
      ...reg,
    }),
    ttft: new Histogram({
      name: 'llmgw_ttft_seconds',
      help: 'Time to first token: request arrival to the first response byte from the engine that served.',
      labelNames: ['model', 'pool'],
      buckets: LATENCY_BUCKETS,
      ...reg,
    }),
    tokens: new Counter({
      name: 'llmgw_tokens_total',
      help: 'Tokens by model and direction, from the engine usage report.',
      labelNames: ['model', 'direction'],
      ...reg,
    }),
    inflight: new Gauge({
      name: 'llmgw_endpoint_inflight',
      help: 'Requests this router has in flight to the replica.',
      labelNames: ['replica'],
      ...reg,
      collect() {
        this.reset();
        for (const [replica, n] of src.inflight()) this.set({ replica }, n);
      },
    }),
    upstreamWaiting: new Gauge({
      name: 'llmgw_upstream_waiting',
      help: 'Requests waiting for a free connection to the replica (its pool is at upstream_connections).',
      labelNames: ['replica'],
      ...reg,
      collect() {
        this.reset();
        for (const [replica, st] of src.upstreamPools()) this.set({ replica }, st.waiting);
      },
    }),
    upstreamConnections: new Gauge({
      name: 'llmgw_upstream_connections',
      help: 'Connections open to the replica.',
      labelNames: ['replica'],
      ...reg,
      collect() {
        this.reset();
        for (const [replica, st] of src.upstreamPools()) this.set({ replica }, st.connections);
      },
    }),
    score: new Gauge({
      name: 'llmgw_endpoint_score',
      help: 'Total weighted score of the replica at its last scheduling decision.',
      labelNames: ['replica'],
      ...reg,
      collect() {
        this.reset();
        for (const [replica, s] of src.scores()) this.set({ replica }, s.total);
      },
    }),
    scorerValue: new Gauge({
      name: 'llmgw_scorer_value',
      help: 'Clamped value of each scorer for the replica at its last decision.',
      labelNames: ['scorer', 'replica'],
      ...reg,
      collect() {
        this.reset();
        for (const [replica, s] of src.scores()) for (const [scorer, v] of Object.entries(s.perScorer)) this.set({ scorer, replica }, v);
      },
    }),
    considered: new Histogram({
      name: 'llmgw_candidates_considered',
      help: 'Endpoints considered per scheduling decision.',
      labelNames: ['model'],
      buckets: [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128],
      ...reg,
    }),
    filtered: new Counter({ name: 'llmgw_candidates_filtered_total', help: 'Candidates removed, by filter.', labelNames: ['model', 'filter'], ...reg }),
    stale: new Gauge({ name: 'llmgw_endpoint_metrics_stale', help: "1 while the replica's scraped metrics are stale.", labelNames: ['replica'], ...reg }),
    cacheDecision: new Counter({ name: 'llmgw_cache_decision_total', help: 'Cache-aware routing decisions.', labelNames: ['model', 'decision'], ...reg }),
    scheduleFailures: new Counter({
      name: 'llmgw_schedule_failures_total',
      help: 'Requests for which no endpoint could be picked.',
      labelNames: ['model', 'reason'],
      ...reg,
    }),
    retries: new Counter({
      name: 'llmgw_retries_total',
      help: 'Upstream attempts retried on another endpoint, by reason.',
      labelNames: ['model', 'reason'],
      ...reg,
    }),
    streamCuts: new Counter({
      name: 'llmgw_streams_cut_total',
      help: 'Streams that broke after they had started (the client got an error event), by reason.',
      labelNames: ['model', 'pool', 'reason'],
      ...reg,
    }),
    fallbacks: new Counter({ name: 'llmgw_fallbacks_total', help: 'Requests served by a fallback model.', labelNames: ['model', 'served_model'], ...reg }),
    breaker: new Gauge({ name: 'llmgw_endpoint_breaker_state', help: 'Breaker state: 0 closed, 1 half-open, 2 open.', labelNames: ['replica'], ...reg }),
    endpointCacheStale: new Gauge({
      name: 'llmgw_endpoint_cache_stale',
      help: '1 when the endpoint list is older than endpoint_cache_max_age (still served).',
      ...reg,
      collect() {
        this.set(src.endpointCacheStale() ? 1 : 0);
      },
    }),
  };
}

export type RouterMetrics = ReturnType<typeof createRouterMetrics>;

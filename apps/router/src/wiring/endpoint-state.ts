import type { EngineDialect } from '@llmgw/contracts';
import type { RouterConfig } from '@llmgw/config';
import { Scraper, type EndpointSource } from '@llmgw/endpoints';
import type { MappingOverride } from '@llmgw/engine-metrics';
import type { Logger } from '@llmgw/observability';
import { EndpointHealth, type BreakerState } from '../endpoint-health';
import type { RouterMetrics } from '../metrics';

export type EndpointStateConfig = Pick<RouterConfig, 'cooldown_seconds' | 'breaker' | 'scrape_interval' | 'scrape_timeout' | 'stale_after' | 'engine_metrics'>;

const BREAKER_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/** What the router knows of each endpoint besides the source: its health (breaker, in flight) and its scraped stats. */
export interface EndpointState {
  health: EndpointHealth;
  scraper: Scraper;
  /** Last score per replica, exported as gauges. */
  lastScores: Map<string, { total: number; perScorer: Record<string, number> }>;
  /** What a breaker transition does (gauge, log line); other breakers (providers') report through it too. */
  onBreakerTransition(id: string, from: BreakerState, to: BreakerState): void;
  close(): Promise<void>;
}

/**
 * The breaker and scraper of every endpoint, their metrics, and the cleanup
 * that forgets what was kept about endpoints that left the source (scores,
 * health, per-replica series) once nothing runs on them.
 */
export function endpointState(cfg: EndpointStateConfig, source: EndpointSource, metrics: RouterMetrics, log: Logger): EndpointState {
  const health = new EndpointHealth({
    cooldownMs: cfg.cooldown_seconds * 1000,
    failureThreshold: cfg.breaker.failure_threshold,
    scrapeFailureThreshold: 3,
    baseBackoffMs: cfg.breaker.base_backoff,
    maxBackoffMs: cfg.breaker.max_backoff,
  });
  const onBreakerTransition = (id: string, from: BreakerState, to: BreakerState) => {
    metrics.breaker.set({ replica: id }, BREAKER_VALUE[to]);
    log[to === 'open' ? 'warn' : 'info']({ endpoint: id, from, to }, 'endpoint breaker');
  };
  health.onTransition = onBreakerTransition;
  const scraped = new Set<string>();
  const scraper = new Scraper({
    source,
    intervalMs: cfg.scrape_interval,
    timeoutMs: cfg.scrape_timeout,
    staleAfterMs: cfg.stale_after,
    overrides: cfg.engine_metrics as Partial<Record<EngineDialect, MappingOverride>>,
    log,
    onScrape: (ep, s) => {
      health.scrapeFailures(ep.id, s.consecutiveFailures, s.unreachable);
      scraped.add(ep.id);
      metrics.stale.set({ replica: ep.id }, s.stale ? 1 : 0);
    },
  });
  const lastScores = new Map<string, { total: number; perScorer: Record<string, number> }>();
  const unsubscribe = source.subscribe(() => {
    const live = new Set(source.all().map((e) => e.id));
    for (const id of new Set([...lastScores.keys(), ...health.known(), ...scraped])) {
      if (live.has(id) || health.inflight(id) > 0) continue;
      lastScores.delete(id);
      health.forget(id);
      scraped.delete(id);
      metrics.stale.remove({ replica: id });
      metrics.breaker.remove({ replica: id });
    }
  });
  return {
    health,
    scraper,
    lastScores,
    onBreakerTransition,
    async close() {
      unsubscribe();
      await scraper.close();
    },
  };
}

import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { droppedLogLines } from './logger';

export { Registry };

/**
 * A registry per service instance (never the global one), so that several
 * services can run in one process (`llmgw up`) and tests can build many.
 */
export function createRegistry(service: string, opts: { defaultMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (opts.defaultMetrics) {
    collectDefaultMetrics({ register: registry });
    let counted = 0;
    new Counter({
      name: 'llmgw_log_lines_dropped_total',
      help: 'Log lines dropped because the reader of stdout fell too far behind (the process never waits for it).',
      registers: [registry],
      collect() {
        const now = droppedLogLines();
        if (now > counted) this.inc(now - counted);
        counted = now;
      },
    });
  }
  return registry;
}

/** Buckets (seconds) for request-scale latencies: 1 ms … 60 s. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

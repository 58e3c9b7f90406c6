import type { EndpointSource, Scraper } from '@llmgw/endpoints';
import type { EndpointView } from '@llmgw/scheduling';
import type { EndpointHealth } from '../endpoint-health';

/**
 * Scheduling views of the endpoints serving a model: source, scraped stats and health, fresh on each call.
 * `inflight` is this router's own count plus the other routers' (`peers`, the load share of docs/prefix.md).
 */
export function endpointViews(
  source: EndpointSource,
  scraper: Pick<Scraper, 'state'>,
  health: EndpointHealth,
  peers: (id: string) => number = () => 0,
): (model: string) => EndpointView[] {
  return (model) => {
    const out: EndpointView[] = [];
    for (const e of source.endpoints(model)) {
      const s = scraper.state(e.id);
      out.push({
        id: e.id,
        url: e.url,
        model: e.model,
        pool: e.pool,
        poolPriority: e.priority,
        engine: e.engine,
        weight: e.weight,
        draining: e.draining,
        stale: s?.stale ?? true,
        available: health.available(e.id),
        stats: s?.stats,
        inflight: health.inflight(e.id) + peers(e.id),
        drainRate: s?.drainRate,
        batchCapacity: s?.batchCapacity || undefined,
      });
    }
    return out;
  };
}

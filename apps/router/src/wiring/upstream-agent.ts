import { Agent, Pool } from 'undici';
import type { RouterConfig } from '@llmgw/config';
import type { EndpointSource } from '@llmgw/endpoints';

export type UpstreamConfig = Pick<RouterConfig, 'upstream_connections' | 'upstream_connections_per_endpoint'> & {
  timeouts: Pick<RouterConfig['timeouts'], 'connect'>;
};

/**
 * One connection pool per engine origin, sized per endpoint: upstream_connections_per_endpoint by
 * endpoint name; else, when upstream_connections is set, at least that and at least the engine's
 * declared batch slots (max_num_seqs: every request it can run at once needs its own connection);
 * else unbounded. A pool cap is a FIFO queue that knows no bands and that admission cannot see, so
 * by default there is none: the router holds one upstream connection per request it has in flight
 * to the endpoint (at most its client connections), and admission — on declared or learned slots —
 * is what holds requests back. Requests beyond a cap wait, counted in llmgw_upstream_waiting.
 */
export function upstreamAgent(cfg: UpstreamConfig, source: EndpointSource): Agent {
  const connectionsFor = (origin: string): number | null => {
    const floor = cfg.upstream_connections;
    let n = floor ?? 0;
    for (const e of source.all()) {
      if (originOf(e.url) !== origin) continue;
      const pinned = cfg.upstream_connections_per_endpoint[e.id];
      if (pinned !== undefined) return pinned;
      if (e.maxNumSeqs !== undefined) n = Math.max(n, e.maxNumSeqs);
    }
    return floor === undefined ? null : n;
  };
  return new Agent({
    factory: (origin, opts) => new Pool(origin, { ...opts, connections: connectionsFor(String(origin)) }),
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    connectTimeout: cfg.timeouts.connect,
    // First-token, total and idle limits are enforced per attempt, not by the socket.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}

/** Waiting requests and open connections of each endpoint's upstream pool (llmgw_upstream_*). */
export function upstreamPoolStats(agent: Agent, source: EndpointSource): Array<[string, { waiting: number; connections: number }]> {
  const stats = (agent as Agent & { stats?: Record<string, { queued: number; connected: number; size: number }> }).stats ?? {};
  return source.all().flatMap((e) => {
    const st = stats[originOf(e.url)];
    return st ? [[e.id, { waiting: st.queued, connections: st.connected }] as [string, { waiting: number; connections: number }]] : [];
  });
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

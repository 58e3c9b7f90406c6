import { ENDPOINT_STATS_VERSION, endpointStatsKeys, type agentV1, type EndpointStatsRecord } from '@llmgw/contracts';
import type { Logger } from '@llmgw/observability';
import type { Redis } from 'ioredis';

/** The published record of one scrape (undefined optional figures stay absent). */
export function toEndpointStats(nodeId: string, s: agentV1.EngineStats__Output, now: number): EndpointStatsRecord {
  const opt = <K extends keyof agentV1.EngineStats__Output>(k: K) => (s[k] === undefined || s[k] === null ? {} : { [k]: s[k] });
  return {
    v: ENDPOINT_STATS_VERSION,
    replicaId: s.replicaId,
    shardId: s.shardId,
    nodeId,
    endpoint: s.endpoint,
    engine: s.engine,
    scrapedAtMs: s.scrapedAtMs,
    publishedAtMs: now,
    waiting: s.waiting,
    running: s.running,
    ...opt('kvUsage'),
    ...opt('promptTokensTotal'),
    ...opt('generationTokensTotal'),
    ...opt('prefixCacheQueriesTotal'),
    ...opt('prefixCacheHitsTotal'),
    ...opt('requestsFinishedTotal'),
    ...opt('ttftP50Ms'),
    ...opt('tpotP50Ms'),
    error: s.error,
  } as EndpointStatsRecord;
}

/**
 * Writes agents' engine stats where routers and admission read endpoint
 * state: one expiring key per replica, batched every `flushMs` into one
 * pipeline, then one change notification.
 */
export class EngineStatsPublisher {
  private batch = new Map<string, EndpointStatsRecord>();
  private readonly timer: NodeJS.Timeout;
  private readonly keys: ReturnType<typeof endpointStatsKeys>;

  constructor(private readonly o: { redis: Redis; keyPrefix: string; ttlMs: number; log: Logger; flushMs?: number; clock?: () => number }) {
    this.keys = endpointStatsKeys(o.keyPrefix);
    this.timer = setInterval(() => void this.flush(), o.flushMs ?? 250);
    this.timer.unref();
  }

  add(nodeId: string, s: agentV1.EngineStats__Output): void {
    if (!s.replicaId) return;
    this.batch.set(s.replicaId, toEndpointStats(nodeId, s, (this.o.clock ?? Date.now)()));
  }

  async flush(): Promise<void> {
    if (!this.batch.size) return;
    const b = this.batch;
    this.batch = new Map();
    const p = this.o.redis.pipeline();
    for (const [id, rec] of b) p.set(this.keys.key(id), JSON.stringify(rec), 'PX', this.o.ttlMs);
    p.publish(this.keys.channel, [...b.keys()].join(','));
    try {
      await p.exec();
    } catch (e) {
      this.o.log.debug({ err: (e as Error).message }, 'engine stats: publishing to Redis failed');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

import { Redis } from 'ioredis';
import type { EngineKind } from '@llmgw/engine-metrics';
import type { Logger } from '@llmgw/observability';
import { CachedEndpointList } from './endpoint-list';
import { normaliseEndpoint } from './static-source';
import type { EndpointInfo } from './types';

/**
 * The Redis layout of the published endpoint set (docs/router.md):
 *
 * - `<prefix>endpoints` — HASH; field = endpoint id, value = the JSON of one
 *   {@link EndpointInfo} (`id, url, model, engine, pool, priority, weight, draining`).
 * - `<prefix>endpoints:changed` — pub/sub channel; the writer publishes after
 *   every change (the payload is informational: the new version number).
 * - `<prefix>endpoints:version` — INCR'd with every change.
 *
 * Readers load the hash at start, reload on every message and every
 * `pollIntervalMs` (in case a message was missed), and keep serving the last
 * good list whenever Redis is unreachable.
 */
export function endpointKeys(prefix: string) {
  return { hash: `${prefix}endpoints`, channel: `${prefix}endpoints:changed`, version: `${prefix}endpoints:version` };
}

const ENGINES = new Set<EngineKind>(['vllm', 'sglang', 'llamacpp']);

/** Parses one hash value; undefined when it is not a valid endpoint. */
export function decodeEndpoint(id: string, json: string): EndpointInfo | undefined {
  try {
    const o = JSON.parse(json) as Record<string, unknown>;
    if (typeof o.url !== 'string' || typeof o.model !== 'string') return undefined;
    if (o.engine !== undefined && !ENGINES.has(o.engine as EngineKind)) return undefined;
    return normaliseEndpoint({
      id,
      url: o.url,
      model: o.model,
      engine: o.engine as EngineKind | undefined,
      pool: typeof o.pool === 'string' ? o.pool : undefined,
      priority: typeof o.priority === 'number' ? o.priority : undefined,
      weight: typeof o.weight === 'number' && o.weight > 0 ? o.weight : undefined,
      draining: o.draining === true,
      scheduling_policy: o.scheduling_policy === 'priority' ? 'priority' : undefined,
      max_num_seqs: typeof o.max_num_seqs === 'number' ? o.max_num_seqs : undefined,
      kvEvents: kvEventsField(o.kv_events),
    });
  } catch {
    return undefined;
  }
}

function kvEventsField(v: unknown): EndpointInfo['kvEvents'] {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.endpoint !== 'string') return undefined;
  return { endpoint: o.endpoint, ...(typeof o.replay_endpoint === 'string' ? { replayEndpoint: o.replay_endpoint } : {}) };
}

export interface RedisEndpointSourceOptions {
  url: string;
  keyPrefix?: string;
  pollIntervalMs?: number;
  log?: Logger;
}

/** Endpoints published in Redis by the control plane, cached locally. */
export class RedisEndpointSource extends CachedEndpointList {
  private readonly keys: ReturnType<typeof endpointKeys>;
  private readonly cmd: Redis;
  private readonly sub: Redis;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private loading?: Promise<void>;
  private again = false;

  private constructor(private readonly opts: RedisEndpointSourceOptions) {
    super();
    this.keys = endpointKeys(opts.keyPrefix ?? 'llmgw:');
    const ro = { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: (n: number) => Math.min(n * 200, 2000) };
    this.cmd = new Redis(opts.url, ro);
    this.sub = new Redis(opts.url, ro);
    for (const c of [this.cmd, this.sub]) c.on('error', (e) => opts.log?.debug({ err: e.message }, 'endpoint source redis error'));
  }

  /** Connects, loads the list once (an empty list if Redis is down) and starts watching. */
  static async open(opts: RedisEndpointSourceOptions): Promise<RedisEndpointSource> {
    const s = new RedisEndpointSource(opts);
    await s.start();
    return s;
  }

  private async start(): Promise<void> {
    try {
      await Promise.all([this.cmd.connect(), this.sub.connect()]);
    } catch (e) {
      this.opts.log?.warn({ err: (e as Error).message }, 'endpoint source: redis unreachable; serving an empty list until it answers');
    }
    this.sub.on('message', (ch: string) => {
      if (ch === this.keys.channel) void this.reload();
    });
    this.sub.on('ready', () => {
      void this.sub.subscribe(this.keys.channel).catch(() => undefined);
      void this.reload();
    });
    if (this.sub.status === 'ready') await this.sub.subscribe(this.keys.channel).catch(() => undefined);
    await this.reload();
    this.timer = setInterval(() => void this.reload(), this.opts.pollIntervalMs ?? 10_000);
    this.timer.unref();
  }

  /** Re-reads the hash; coalesces concurrent calls; keeps the old list on failure. */
  reload(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        await this.loadOnce();
      } while (this.again && !this.closed);
    })().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async loadOnce(): Promise<void> {
    if (this.closed) return;
    let raw: Record<string, string>;
    try {
      raw = await this.cmd.hgetall(this.keys.hash);
    } catch (e) {
      this.opts.log?.debug({ err: (e as Error).message }, 'endpoint source: reload failed; keeping the cached list');
      return;
    }
    const list: EndpointInfo[] = [];
    for (const [id, json] of Object.entries(raw)) {
      const e = decodeEndpoint(id, json);
      if (e) list.push(e);
      else this.opts.log?.warn({ endpoint: id }, 'endpoint source: ignoring an invalid endpoint entry');
    }
    list.sort((a, b) => a.id.localeCompare(b.id));
    if (sameList(list, this.all())) this.touch();
    else this.replace(list, true);
  }

  override async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await super.close();
    await this.loading?.catch(() => undefined);
    this.cmd.disconnect();
    this.sub.disconnect();
  }
}

function sameList(a: readonly EndpointInfo[], b: readonly EndpointInfo[]): boolean {
  return a.length === b.length && a.every((e, i) => JSON.stringify(e) === JSON.stringify(b[i]));
}

/**
 * Writes the layout above. The control plane publishes with this; tests use
 * it to drive a RedisEndpointSource.
 */
export class RedisEndpointWriter {
  private readonly keys: ReturnType<typeof endpointKeys>;
  constructor(private readonly redis: Redis, keyPrefix = 'llmgw:') {
    this.keys = endpointKeys(keyPrefix);
  }

  async put(e: EndpointInfo): Promise<void> {
    const { id, ...rest } = e;
    await this.redis.multi().hset(this.keys.hash, id, JSON.stringify({ id, ...rest })).incr(this.keys.version).exec();
    await this.publish();
  }

  async remove(id: string): Promise<void> {
    await this.redis.multi().hdel(this.keys.hash, id).incr(this.keys.version).exec();
    await this.publish();
  }

  /** Replaces the whole set atomically. */
  async replace(list: readonly EndpointInfo[]): Promise<void> {
    const m = this.redis.multi().del(this.keys.hash);
    for (const e of list) m.hset(this.keys.hash, e.id, JSON.stringify(e));
    await m.incr(this.keys.version).exec();
    await this.publish();
  }

  /** Deletes the keys this writer owns (tests). */
  async clear(): Promise<void> {
    await this.redis.del(this.keys.hash, this.keys.version);
  }

  private async publish(): Promise<void> {
    const v = await this.redis.get(this.keys.version);
    await this.redis.publish(this.keys.channel, v ?? '0');
  }
}

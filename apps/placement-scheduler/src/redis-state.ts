import type { Redis } from 'ioredis';
import { modelCatalogKeys, MODEL_CATALOG_SCHEMA_VERSION, type CatalogEntry } from '@llmgw/contracts';
import { RedisEndpointWriter } from '@llmgw/endpoints';
import { scalingMode, type EndpointPublisher, type Model, type PlacedEndpoint, type Scaling } from '@llmgw/placement';

/**
 * Publishes the placed replicas as endpoint records v1 (libs/endpoints
 * redis-contract.ts), the one schema routers and admission read; `fabric`
 * and `gpuClass` are not part of the record and are dropped.
 *
 * The placement-scheduler's shared state in Redis, under one key prefix:
 * the endpoint set routers read (libs/endpoints layout), the catalog view
 * and demand signals (libs/contracts model-catalog), and operator targets
 * (`<prefix>placement:targets`, HASH model → {"min","max"} JSON).
 */
export class RedisEndpointPublisher implements EndpointPublisher {
  private readonly writer: RedisEndpointWriter;
  constructor(redis: Redis, prefix: string) {
    this.writer = new RedisEndpointWriter(redis, prefix);
  }

  publish(list: readonly PlacedEndpoint[]): Promise<void> {
    return this.writer.replace(list);
  }
}

export type Target = { min: number; max: number };

/** Operator targets (`ctl model target`), kept in Redis so a restart or a standby keeps them. */
export class RedisTargetStore {
  private readonly key: string;
  constructor(private readonly redis: Redis, prefix: string) {
    this.key = `${prefix}placement:targets`;
  }

  async load(): Promise<Map<string, Target>> {
    const raw = await this.redis.hgetall(this.key);
    const out = new Map<string, Target>();
    for (const [m, json] of Object.entries(raw)) {
      try {
        const t = JSON.parse(json) as Target;
        if (Number.isInteger(t.min) && Number.isInteger(t.max) && t.min >= 0 && t.max >= t.min) out.set(m, { min: t.min, max: t.max });
      } catch {
        // A malformed entry is ignored; the next set overwrites it.
      }
    }
    return out;
  }

  async set(model: string, t: Target | undefined): Promise<void> {
    if (t) await this.redis.hset(this.key, model, JSON.stringify(t));
    else await this.redis.hdel(this.key, model);
  }
}

/** Seconds a client is told to wait while an on-demand model loads. */
export function retryAfterSeconds(m: Model): number {
  const startup = Math.max(...m.profiles.map((p) => p.startupTimeoutMs));
  return Math.max(5, Math.min(30, Math.ceil(startup / 60_000)));
}

/** The router-facing catalog view: every name and alias → its canonical model and mode. */
export function catalogEntries(models: readonly Model[], scalingOf: (m: Model) => Scaling): Map<string, CatalogEntry> {
  const out = new Map<string, CatalogEntry>();
  for (const m of models) {
    const e: CatalogEntry = { v: MODEL_CATALOG_SCHEMA_VERSION, model: m.name, mode: scalingMode(scalingOf(m)), retryAfterS: retryAfterSeconds(m) };
    for (const n of [m.name, ...m.aliases]) out.set(n, e);
  }
  return out;
}

/** Writes the catalog view and reads demand. */
export class RedisCatalogView {
  private readonly keys: ReturnType<typeof modelCatalogKeys>;
  private written = '';
  constructor(private readonly redis: Redis, prefix: string) {
    this.keys = modelCatalogKeys(prefix);
  }

  /** Replaces the catalog view when it changed since the last write. */
  async write(entries: Map<string, CatalogEntry>): Promise<void> {
    const sorted = [...entries].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const key = JSON.stringify(sorted);
    if (key === this.written) return;
    const m = this.redis.multi().del(this.keys.catalog);
    for (const [n, e] of sorted) m.hset(this.keys.catalog, n, JSON.stringify(e));
    await m.exec();
    this.written = key;
  }

  /** The latest demand time per model. */
  async demand(): Promise<Map<string, number>> {
    const raw = await this.redis.hgetall(this.keys.demand);
    return new Map(Object.entries(raw).map(([m, v]) => [m, Number(v)] as [string, number]).filter(([, v]) => Number.isFinite(v)));
  }

  get demandChannel(): string {
    return this.keys.demandChannel;
  }
}

import type { Redis } from 'ioredis';
import { MODEL_CATALOG_SCHEMA_VERSION, type CatalogEntry } from '@llmgw/contracts';
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
 * (`<prefix>placement:targets`, HASH model → {"min","max"} JSON). The
 * in-process implementations of the same interfaces are libs/stores'
 * `inProcessState` (config `memory`).
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

// Operator targets and the catalog view live in libs/stores, beside their in-process twins.
export { RedisCatalogView, RedisTargetStore, type Target } from '@llmgw/stores';

/** Seconds a client is told to wait while an on-demand model loads. */
export function retryAfterSeconds(m: Model): number {
  const startup = Math.max(...m.profiles.map((p) => p.startupTimeoutMs));
  return Math.max(5, Math.min(30, Math.ceil(startup / 60_000)));
}

/** The router-facing catalog view: every name, alias and adapter → its canonical (base) model and mode. */
export function catalogEntries(models: readonly Model[], scalingOf: (m: Model) => Scaling): Map<string, CatalogEntry> {
  const out = new Map<string, CatalogEntry>();
  for (const m of models) {
    const e: CatalogEntry = { v: MODEL_CATALOG_SCHEMA_VERSION, model: m.name, mode: scalingMode(scalingOf(m)), retryAfterS: retryAfterSeconds(m) };
    for (const n of [m.name, ...m.aliases]) out.set(n, e);
    // An adapter's own name resolves to its base model (docs/models.md, "Adapters").
    m.adapters?.forEach((a, id) => out.set(a.name, { ...e, adapter: { name: a.name, id, scale: a.scale } }));
  }
  return out;
}

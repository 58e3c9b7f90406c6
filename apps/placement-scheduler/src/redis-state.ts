import type { Redis } from 'ioredis';
import type { ProviderConfig } from '@llmgw/config';
import { MODEL_CATALOG_SCHEMA_VERSION, type CatalogEntry, type CatalogProvider } from '@llmgw/contracts';
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

/**
 * The router-facing catalog view: every name, alias and adapter → its canonical (base) model and mode;
 * a model's entries also carry its fallbacks and its provider (`providers`: the catalog's, by model name).
 */
export function catalogEntries(
  models: readonly Model[],
  scalingOf: (m: Model) => Scaling,
  providers: ReadonlyMap<string, ProviderConfig> = new Map(),
): Map<string, CatalogEntry> {
  const out = new Map<string, CatalogEntry>();
  for (const m of models) {
    const base: CatalogEntry = { v: MODEL_CATALOG_SCHEMA_VERSION, model: m.name, mode: scalingMode(scalingOf(m)), retryAfterS: retryAfterSeconds(m) };
    const p = providers.get(m.name);
    const e: CatalogEntry = { ...base, ...(m.fallbacks.length ? { fallbacks: [...m.fallbacks] } : {}), ...(p ? { provider: catalogProvider(p) } : {}) };
    for (const n of [m.name, ...m.aliases]) out.set(n, e);
    // An adapter's own name resolves to its base model (docs/models.md, "Adapters").
    m.adapters?.forEach((a, id) => out.set(a.name, { ...base, adapter: { name: a.name, id, scale: a.scale } }));
  }
  return out;
}

/**
 * A provider as the catalog view carries it (docs/models.md, "Providers"): its settings and the
 * credentials' reference, field by field, so nothing but a file path or a variable's name travels.
 */
export function catalogProvider(p: ProviderConfig): CatalogProvider {
  const c = p.credentials;
  return {
    base_url: p.base_url,
    model: p.model,
    ...(c ? { credentials: c.file !== undefined ? { file: c.file } : { env: c.env } } : {}),
    connect_timeout: p.connect_timeout,
    first_token_timeout: p.first_token_timeout,
    total_timeout: p.total_timeout,
    max_concurrency: p.max_concurrency,
    price: { input_per_million: p.price.input_per_million, output_per_million: p.price.output_per_million },
  };
}

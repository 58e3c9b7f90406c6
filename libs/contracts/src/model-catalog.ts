/**
 * The catalog facts routers need, and on-demand use signals, shared through
 * Redis between the placement-scheduler (writer of the catalog view, reader
 * of demand) and routers (readers of the catalog view, writers of demand).
 * Upstream notes, "On-demand loading".
 *
 * - `<prefix>models:catalog` — HASH; field = a model name *or alias*, value =
 *   the JSON of one {@link CatalogEntry}. Replaced whole by the scheduler's
 *   leader whenever the catalog (or an operator target) changes.
 * - `<prefix>models:demand` — HASH; field = canonical model name, value =
 *   unix ms of the latest request routers saw for it (on-demand models).
 * - `<prefix>models:demand` — also a pub/sub channel; the payload is the
 *   canonical model name, published when a request finds no replica, so the
 *   scheduler starts one at once instead of at its next pass.
 * - `<prefix>models:catalog:version` — INCR'd with every write of the view;
 *   its existence says a scheduler has written a view (an empty one too), so
 *   a router knows "not catalogued" from "no catalog seen yet".
 * - `<prefix>models:catalog:changed` — pub/sub channel; the writer publishes
 *   the new version (decimal) after every write; routers re-read on it.
 */
export const MODEL_CATALOG_SCHEMA_VERSION = 1;

export function modelCatalogKeys(prefix: string) {
  return {
    catalog: `${prefix}models:catalog`,
    demand: `${prefix}models:demand`,
    demandChannel: `${prefix}models:demand`,
    version: `${prefix}models:catalog:version`,
    changedChannel: `${prefix}models:catalog:changed`,
  };
}

/** How a catalogued model is run (docs/placement.md "Scaling"). */
export type CatalogMode = 'off' | 'on-demand' | 'always-on';

/** One catalog name as routers see it. */
export interface CatalogEntry {
  readonly v: typeof MODEL_CATALOG_SCHEMA_VERSION;
  /** The canonical model name (the entry's own name, or what the alias resolves to). */
  readonly model: string;
  readonly mode: CatalogMode;
  /** Seconds a client should wait before retrying while the model loads (Retry-After). */
  readonly retryAfterS: number;
  /**
   * The name is a LoRA adapter of `model` (docs/models.md, "Adapters"): its llama.cpp id (position in the
   * catalog's list) and scale. Absent on readers of an older writer: the adapter is then unknown.
   */
  readonly adapter?: CatalogAdapter;
  /** The model's fallbacks in the catalog's order (docs/models.md, "Providers"); absent when it has none. */
  readonly fallbacks?: readonly string[];
  /**
   * The model is served by an OpenAI-compatible API elsewhere (docs/models.md, "Providers"): the
   * catalog's `provider` block with the credentials' *reference* (a file path or an environment
   * variable's name), which each router resolves on its own machine. Never a key value.
   */
  readonly provider?: CatalogProvider;
}

/** A provider as routers need it: the catalog's `provider` block, field names as catalog.yaml spells them. */
export interface CatalogProvider {
  readonly base_url: string;
  /** The model's name at the provider. */
  readonly model: string;
  /** Where the router reads the key: exactly one of a file path or an environment variable's name. */
  readonly credentials?: { readonly file?: string; readonly env?: string };
  /** Milliseconds. */
  readonly connect_timeout?: number;
  readonly first_token_timeout?: number;
  readonly total_timeout?: number;
  readonly max_concurrency?: number;
  /** USD per million tokens. */
  readonly price?: { readonly input_per_million: number; readonly output_per_million: number };
}

/** An adapter as routers need it. */
export interface CatalogAdapter {
  readonly name: string;
  readonly id: number;
  readonly scale: number;
}

function decodeAdapter(a: unknown): CatalogAdapter | undefined {
  const o = a as Partial<CatalogAdapter> | undefined;
  if (!o || typeof o.name !== 'string' || !Number.isInteger(o.id) || (o.id as number) < 0) return undefined;
  return { name: o.name, id: o.id as number, scale: typeof o.scale === 'number' && o.scale >= 0 ? o.scale : 1 };
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * The provider block's known fields (anything else is dropped: a key value never travels here);
 * undefined without a base URL and a model. Routers validate it fully (libs/config providerSchema).
 */
function decodeProvider(p: unknown): CatalogProvider | undefined {
  const o = p as Record<string, unknown> | undefined;
  if (!o || typeof o !== 'object' || typeof o.base_url !== 'string' || typeof o.model !== 'string') return undefined;
  const c = o.credentials as Record<string, unknown> | undefined;
  const pr = o.price as Record<string, unknown> | undefined;
  return {
    base_url: o.base_url,
    model: o.model,
    ...(c && typeof c === 'object'
      ? { credentials: { ...(typeof c.file === 'string' ? { file: c.file } : {}), ...(typeof c.env === 'string' ? { env: c.env } : {}) } }
      : {}),
    ...(num(o.connect_timeout) ? { connect_timeout: o.connect_timeout } : {}),
    ...(num(o.first_token_timeout) ? { first_token_timeout: o.first_token_timeout } : {}),
    ...(num(o.total_timeout) ? { total_timeout: o.total_timeout } : {}),
    ...(num(o.max_concurrency) ? { max_concurrency: o.max_concurrency } : {}),
    ...(pr && typeof pr === 'object' && num(pr.input_per_million) && num(pr.output_per_million)
      ? { price: { input_per_million: pr.input_per_million, output_per_million: pr.output_per_million } }
      : {}),
  };
}

/** Parses one hash value; undefined when invalid or of another schema version. */
export function decodeCatalogEntry(json: string): CatalogEntry | undefined {
  try {
    const o = JSON.parse(json) as Partial<CatalogEntry>;
    if (o.v !== MODEL_CATALOG_SCHEMA_VERSION || typeof o.model !== 'string' || !['off', 'on-demand', 'always-on'].includes(o.mode as string)) return undefined;
    const adapter = decodeAdapter(o.adapter);
    const provider = decodeProvider(o.provider);
    const fallbacks = Array.isArray(o.fallbacks) ? o.fallbacks.filter((f): f is string => typeof f === 'string') : [];
    return {
      v: o.v,
      model: o.model,
      mode: o.mode as CatalogMode,
      retryAfterS: typeof o.retryAfterS === 'number' && o.retryAfterS > 0 ? o.retryAfterS : 10,
      ...(adapter ? { adapter } : {}),
      ...(fallbacks.length ? { fallbacks } : {}),
      ...(provider ? { provider } : {}),
    };
  } catch {
    return undefined;
  }
}

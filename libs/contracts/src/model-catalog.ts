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

/** Parses one hash value; undefined when invalid or of another schema version. */
export function decodeCatalogEntry(json: string): CatalogEntry | undefined {
  try {
    const o = JSON.parse(json) as Partial<CatalogEntry>;
    if (o.v !== MODEL_CATALOG_SCHEMA_VERSION || typeof o.model !== 'string' || !['off', 'on-demand', 'always-on'].includes(o.mode as string)) return undefined;
    const adapter = decodeAdapter(o.adapter);
    return {
      v: o.v,
      model: o.model,
      mode: o.mode as CatalogMode,
      retryAfterS: typeof o.retryAfterS === 'number' && o.retryAfterS > 0 ? o.retryAfterS : 10,
      ...(adapter ? { adapter } : {}),
    };
  } catch {
    return undefined;
  }
}

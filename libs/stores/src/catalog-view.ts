import type { CatalogEntry } from '@llmgw/contracts';

/**
 * The catalog view and demand (on-demand loading, docs/placement.md): the
 * placement-scheduler's leader writes which names are catalogued and how each
 * runs; routers read it, hear of every change at once, and report use of
 * on-demand models back (`touch`), urgently when a request found no replica.
 *
 * Implemented in Redis (`RedisCatalogView` + `RedisCatalogViewReader`,
 * libs/contracts model-catalog.ts layout, shared across processes) and in
 * process (`MemoryCatalogView`, the services of one process); one contract
 * suite runs against both (catalog-view.spec.ts).
 */
export interface CatalogViewWriter {
  /** Replaces the whole view (a no-op when it did not change since this writer's last write). */
  write(entries: ReadonlyMap<string, CatalogEntry>): Promise<void>;
  /** The latest demand time (unix ms) per canonical model. */
  demand(): Promise<Map<string, number>>;
  /** Calls `cb` with the model of every urgent touch; resolves once listening. Returns an unsubscribe function. */
  onUrgentDemand(cb: (model: string) => void): Promise<() => void>;
}

export interface CatalogViewReader {
  /** The entry of a catalogued name (or alias), from the last view read. */
  get(name: string): CatalogEntry | undefined;
  /** Every catalogued name (models, aliases, adapters) of the last view read. */
  names(): string[];
  /** True once a written view (an empty one too) was read; false while none has been seen. */
  loaded(): boolean;
  /** Called after the view read changed (or was first loaded); returns an unsubscribe function. */
  onChange(cb: () => void): () => void;
  /** Reports use of `model` at `nowMs`; `urgent` also wakes the writer at once. */
  touch(model: string, nowMs: number, urgent: boolean): Promise<void>;
  /** Re-reads the view now (a reader also re-reads on every change notification). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/** The order-independent text of a view, to tell whether it changed. */
export function catalogViewKey(entries: ReadonlyMap<string, CatalogEntry>): string {
  return JSON.stringify([...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

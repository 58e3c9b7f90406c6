import { decodeCatalogEntry, type CatalogEntry } from '@llmgw/contracts';
import { catalogViewKey, type CatalogViewReader, type CatalogViewWriter } from './catalog-view';

/**
 * The in-process catalog view: the single-machine mode (`llmgw up` without
 * Redis), same contract as Redis. Entries are kept as their JSON, decoded by
 * readers as a Redis reader decodes them; readers are told of each write as
 * it happens.
 */
export class MemoryCatalogView implements CatalogViewWriter {
  private view?: Map<string, string>;
  private readonly demandAt = new Map<string, number>();
  private readonly changeListeners = new Set<() => void>();
  private readonly urgentListeners = new Set<(model: string) => void>();
  private written = '';

  async write(entries: ReadonlyMap<string, CatalogEntry>): Promise<void> {
    const key = catalogViewKey(entries);
    if (this.view && key === this.written) return;
    this.view = new Map([...entries].map(([n, e]) => [n, JSON.stringify(e)] as [string, string]));
    this.written = key;
    for (const cb of [...this.changeListeners]) cb();
  }

  async demand(): Promise<Map<string, number>> {
    return new Map(this.demandAt);
  }

  async onUrgentDemand(cb: (model: string) => void): Promise<() => void> {
    this.urgentListeners.add(cb);
    return () => this.urgentListeners.delete(cb);
  }

  /** A router's reader of this view. */
  reader(): CatalogViewReader {
    return new MemoryCatalogViewReader(this);
  }

  /** @internal the raw view (undefined before the first write). */
  raw(): ReadonlyMap<string, string> | undefined {
    return this.view;
  }

  /** @internal */
  listen(cb: () => void): () => void {
    this.changeListeners.add(cb);
    return () => this.changeListeners.delete(cb);
  }

  /** @internal */
  recordDemand(model: string, nowMs: number, urgent: boolean): void {
    this.demandAt.set(model, nowMs);
    if (urgent) for (const cb of [...this.urgentListeners]) queueMicrotask(() => cb(model));
  }
}

class MemoryCatalogViewReader implements CatalogViewReader {
  private entries = new Map<string, CatalogEntry>();
  private isLoaded = false;
  private readonly subs = new Set<() => void>();
  private readonly unlisten: () => void;

  constructor(private readonly view: MemoryCatalogView) {
    this.read();
    this.unlisten = view.listen(() => {
      this.read();
      for (const cb of [...this.subs]) cb();
    });
  }

  private read(): void {
    const raw = this.view.raw();
    if (!raw) return;
    const next = new Map<string, CatalogEntry>();
    for (const [n, json] of raw) {
      const e = decodeCatalogEntry(json);
      if (e) next.set(n, e);
    }
    this.entries = next;
    this.isLoaded = true;
  }

  get(name: string): CatalogEntry | undefined {
    return this.entries.get(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  loaded(): boolean {
    return this.isLoaded;
  }

  onChange(cb: () => void): () => void {
    this.subs.add(cb);
    return () => this.subs.delete(cb);
  }

  async touch(model: string, nowMs: number, urgent: boolean): Promise<void> {
    this.view.recordDemand(model, nowMs, urgent);
  }

  async refresh(): Promise<void> {
    this.read();
  }

  async close(): Promise<void> {
    this.unlisten();
    this.subs.clear();
  }
}

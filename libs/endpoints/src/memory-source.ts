import { CachedEndpointList } from './endpoint-list';
import { decodeEndpointRecord, encodeEndpoint } from './redis-contract';
import type { EndpointInfo } from './types';

/**
 * What the control plane publishes endpoints through: `RedisEndpointWriter`
 * (shared across processes) or `MemoryEndpointHub` (the services of one
 * process, `llmgw up`). One contract suite runs against both
 * (endpoint-publication.spec.ts).
 */
export interface EndpointWriter {
  put(e: EndpointInfo): Promise<void>;
  remove(id: string): Promise<void>;
  /** Replaces the whole set at once. */
  replace(list: readonly EndpointInfo[]): Promise<void>;
}

/**
 * The in-process endpoint set: the Redis layout's hash and change channel,
 * kept in this process's memory. Records are stored encoded (endpoint record
 * v1, redis-contract.ts) and decoded by each reader exactly as a
 * RedisEndpointSource decodes them, so a reader here sees what it would see
 * through Redis. Readers (`source()`) hear of every change at once.
 */
export class MemoryEndpointHub implements EndpointWriter {
  private readonly records = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private v = 0;

  /** INCR'd with every change, as `<prefix>endpoints:version` is. */
  get version(): number {
    return this.v;
  }

  async put(e: EndpointInfo): Promise<void> {
    this.records.set(e.id, encodeEndpoint(e));
    this.changed();
  }

  async remove(id: string): Promise<void> {
    this.records.delete(id);
    this.changed();
  }

  async replace(list: readonly EndpointInfo[]): Promise<void> {
    this.records.clear();
    for (const e of list) this.records.set(e.id, encodeEndpoint(e));
    this.changed();
  }

  /** The stored records, id → JSON (what HGETALL would return). */
  raw(): ReadonlyMap<string, string> {
    return this.records;
  }

  /** Called after every change; returns an unsubscribe function. */
  onChange(cb: () => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /** A reader of this set; close it to stop following. */
  source(): MemoryEndpointSource {
    return new MemoryEndpointSource(this);
  }

  private changed(): void {
    this.v++;
    for (const cb of [...this.listeners]) cb();
  }
}

/** Reads a MemoryEndpointHub: the list at creation, then every change as it is made. */
export class MemoryEndpointSource extends CachedEndpointList {
  private readonly unsubscribe: () => void;

  constructor(private readonly hub: MemoryEndpointHub) {
    super();
    this.replace(this.read(), false);
    this.unsubscribe = hub.onChange(() => this.reload());
  }

  private read(): EndpointInfo[] {
    const list: EndpointInfo[] = [];
    for (const [id, json] of this.hub.raw()) {
      const e = decodeEndpointRecord(id, json);
      if (e.ok) list.push(e.value);
    }
    return list.sort((a, b) => a.id.localeCompare(b.id));
  }

  private reload(): void {
    const list = this.read();
    const cur = this.all();
    if (list.length === cur.length && list.every((e, i) => JSON.stringify(e) === JSON.stringify(cur[i]))) this.touch();
    else this.replace(list, true);
  }

  /** The hub is the store itself: the list is never older than its last change. */
  override lastRefreshMs(): number {
    return Date.now();
  }

  override async close(): Promise<void> {
    this.unsubscribe();
    await super.close();
  }
}

import type { Redis } from 'ioredis';
import { decodeCatalogEntry, modelCatalogKeys, type CatalogEntry } from '@llmgw/contracts';
import { CoalescedReload } from '@llmgw/endpoints';
import { catalogViewKey, type CatalogViewReader, type CatalogViewWriter } from './catalog-view';

/** A minimal logger shape (pino fits). */
interface Log {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * The catalog view's writer and demand reader in Redis (libs/contracts
 * model-catalog.ts layout). `sub` is a connection of its own for the urgent
 * demand channel (a subscribed connection can do nothing else); without it
 * `onUrgentDemand` is refused and demand is only read by `demand()`.
 */
export class RedisCatalogView implements CatalogViewWriter {
  private readonly keys: ReturnType<typeof modelCatalogKeys>;
  private written = '';

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly sub?: Redis,
  ) {
    this.keys = modelCatalogKeys(prefix);
  }

  async write(entries: ReadonlyMap<string, CatalogEntry>): Promise<void> {
    const key = catalogViewKey(entries);
    if (key === this.written) return;
    const m = this.redis.multi().del(this.keys.catalog);
    for (const [n, e] of entries) m.hset(this.keys.catalog, n, JSON.stringify(e));
    const res = await m.incr(this.keys.version).exec();
    const failed = res?.find(([err]) => err);
    if (!res || failed) throw failed?.[0] ?? new Error('catalog view: the write was not executed');
    this.written = key;
    const version = res[res.length - 1][1];
    await this.redis.publish(this.keys.changedChannel, String(version));
  }

  async demand(): Promise<Map<string, number>> {
    const raw = await this.redis.hgetall(this.keys.demand);
    return new Map(
      Object.entries(raw)
        .map(([m, v]) => [m, Number(v)] as [string, number])
        .filter(([, v]) => Number.isFinite(v)),
    );
  }

  async onUrgentDemand(cb: (model: string) => void): Promise<() => void> {
    const sub = this.sub;
    if (!sub) throw new Error('catalog view: urgent demand needs a subscriber connection');
    const onMessage = (ch: string, model: string) => {
      if (ch === this.keys.demandChannel && model) cb(model);
    };
    sub.on('message', onMessage);
    await sub.subscribe(this.keys.demandChannel);
    return () => {
      sub.off('message', onMessage);
    };
  }

  /** The demand channel's name (the scheduler subscribes on its own connection). */
  get demandChannel(): string {
    return this.keys.demandChannel;
  }
}

export interface RedisCatalogViewReaderOptions {
  /** Commands (reads and demand writes). */
  redis: Redis;
  /** A connection of its own for the change channel. */
  sub: Redis;
  keyPrefix: string;
  /** Re-read this often as well, in case a change message was missed; ms. */
  pollIntervalMs?: number;
  log?: Log;
}

/**
 * A router's reader of the catalog view in Redis: reads it at open, re-reads
 * on every change message (and on each resubscription after the connection
 * comes back, and every `pollIntervalMs`), and keeps the last view read when
 * Redis fails. The connections are the caller's to open and close.
 */
export class RedisCatalogViewReader implements CatalogViewReader {
  private readonly keys: ReturnType<typeof modelCatalogKeys>;
  private entries = new Map<string, CatalogEntry>();
  private viewKey = '';
  private isLoaded = false;
  private readonly subs = new Set<() => void>();
  private timer?: NodeJS.Timeout;
  private closed = false;
  private readonly reloads = new CoalescedReload(
    () => this.readOnce(),
    () => this.closed,
  );
  private readonly onMessage = (ch: string) => {
    if (ch === this.keys.changedChannel) void this.refresh();
  };
  private readonly onReady = () => {
    void this.o.sub.subscribe(this.keys.changedChannel).catch(() => undefined);
    void this.refresh();
  };

  private constructor(private readonly o: RedisCatalogViewReaderOptions) {
    this.keys = modelCatalogKeys(o.keyPrefix);
  }

  /** Subscribes (when the connection is up; later when it comes up) and reads the view once. */
  static async open(o: RedisCatalogViewReaderOptions): Promise<RedisCatalogViewReader> {
    const r = new RedisCatalogViewReader(o);
    o.sub.on('message', r.onMessage);
    o.sub.on('ready', r.onReady);
    if (o.sub.status === 'ready') await o.sub.subscribe(r.keys.changedChannel).catch(() => undefined);
    await r.refresh();
    r.timer = setInterval(() => void r.refresh(), o.pollIntervalMs ?? 10_000);
    r.timer.unref();
    return r;
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
    const m = this.o.redis.multi().hset(this.keys.demand, model, String(nowMs));
    if (urgent) m.publish(this.keys.demandChannel, model);
    await m.exec();
  }

  /** Re-reads the view; coalesces concurrent calls; keeps the last view on failure. */
  refresh(): Promise<void> {
    return this.reloads.run();
  }

  private async readOnce(): Promise<void> {
    if (this.closed) return;
    let raw: Record<string, string>;
    let version: number;
    try {
      const res = await this.o.redis.multi().hgetall(this.keys.catalog).exists(this.keys.version).exec();
      const failed = res?.find(([err]) => err);
      if (!res || failed) throw failed?.[0] ?? new Error('not executed');
      raw = res[0][1] as Record<string, string>;
      version = res[1][1] as number;
    } catch (e) {
      this.o.log?.debug({ err: (e as Error).message }, 'catalog view: read failed; keeping the last view');
      return;
    }
    const next = new Map<string, CatalogEntry>();
    for (const [name, json] of Object.entries(raw)) {
      const e = decodeCatalogEntry(json);
      if (e) next.set(name, e);
      else this.o.log?.warn({ name }, 'catalog view: ignoring an entry that is not a catalog entry v1');
    }
    // A view written by a scheduler that predates the version key still counts once it has entries.
    // Once loaded, a reader stays loaded (a later empty read is an empty view, not "none seen").
    const loaded = this.isLoaded || version > 0 || next.size > 0;
    const key = catalogViewKey(next);
    const changed = key !== this.viewKey || loaded !== this.isLoaded;
    this.entries = next;
    this.viewKey = key;
    this.isLoaded = loaded;
    if (changed && !this.closed) for (const cb of [...this.subs]) cb();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.o.sub.off('message', this.onMessage);
    this.o.sub.off('ready', this.onReady);
    await this.reloads.settled();
    this.subs.clear();
  }
}

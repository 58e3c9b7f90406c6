import type { Redis } from 'ioredis';
import type { CatalogProvider } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import type { AdapterRef } from './adapters';
import type { Logger } from '@llmgw/observability';
import { RedisCatalogViewReader, type CatalogViewReader } from '@llmgw/stores';

/**
 * On-demand loading, the router's side (upstream notes): the catalog view
 * the placement-scheduler publishes (in Redis, or in process under `llmgw
 * up`) says which names are catalogued and how each runs; the router hears of
 * every change of it at once. A request for an on-demand model with no
 * replica is held briefly, then answered 503 `model_loading` with
 * Retry-After, and every request for such a model is reported as use so its
 * replicas stay up. Names in no catalog get the unknown-model 404 — once a
 * catalog view has been read: before that (a router started before the
 * scheduler, or Redis unreachable since start) the router cannot tell, and
 * answers 503 `catalog_not_loaded` with Retry-After instead of a 404 that
 * clients would take as final.
 */
export interface OnDemandOptions {
  /** The catalog view (closed with this). */
  view: CatalogViewReader;
  /** How long a request waits for a replica before `model_loading`, ms. */
  holdMs: number;
  /** Use of one model is reported at most this often, ms. */
  touchEveryMs?: number;
  /** Change notifications of the endpoint source (a held request re-checks on each). */
  subscribe: (cb: () => void) => () => void;
  log?: Logger;
  /** Run after the view is closed (the Redis connections it read through). */
  onClose?: () => void;
}

/** Seconds a client is told to wait while no catalog view has been read yet. */
export const CATALOG_NOT_LOADED_RETRY_S = 1;

export class OnDemand {
  private readonly touched = new Map<string, number>();

  constructor(private readonly o: OnDemandOptions) {}

  /**
   * On the catalog view in Redis, through two connections from the service
   * host (`ctx.redis`: a `commands` one and a `subscriber` for the change
   * channel), which the host also closes.
   */
  static async open(o: Omit<OnDemandOptions, 'view' | 'onClose'> & { redis: Redis; sub: Redis; keyPrefix: string; refreshMs?: number }): Promise<OnDemand> {
    if (o.redis.status !== 'ready')
      o.log?.warn({}, 'on-demand catalog: redis unreachable; unknown models answer 503 catalog_not_loaded until a catalog view is read');
    const view = await RedisCatalogViewReader.open({ redis: o.redis, sub: o.sub, keyPrefix: o.keyPrefix, pollIntervalMs: o.refreshMs, log: o.log });
    return new OnDemand({ ...o, view });
  }

  /** Re-reads the catalog view now (it is also re-read on every change). */
  refresh(): Promise<void> {
    return this.o.view.refresh();
  }

  /** Called after the catalog view read changed (pushed by the writer); returns an unsubscribe function. */
  onViewChange(cb: () => void): () => void {
    return this.o.view.onChange(cb);
  }

  /** False until a catalog view has been read: an unknown name may then still be catalogued. */
  loaded(): boolean {
    return this.o.view.loaded();
  }

  /** The 503 for a name that is not known while no catalog view has been read. */
  notLoaded(name: string): LlmgwError {
    return new LlmgwError(
      'LLMGW_ERR_CATALOG_NOT_LOADED',
      `the model \`${name}\` is not known yet: the model catalog has not been read; retry in ${CATALOG_NOT_LOADED_RETRY_S} s`,
      {
        retryAfterSeconds: CATALOG_NOT_LOADED_RETRY_S,
        param: 'model',
      },
    );
  }

  /** The canonical model a catalogued name (or alias) resolves to. */
  resolve(name: string): string | undefined {
    return this.o.view.get(name)?.model;
  }

  /** The adapter a catalogued adapter name names, with its base model (docs/models.md, "Adapters"). */
  adapterOf(name: string): AdapterRef | undefined {
    const e = this.o.view.get(name);
    return e?.adapter ? { base: e.model, name: e.adapter.name, id: e.adapter.id, scale: e.adapter.scale } : undefined;
  }

  /** Every adapter the catalog view names. */
  adapters(): AdapterRef[] {
    return this.o.view.names().flatMap((n) => this.adapterOf(n) ?? []);
  }

  /** The fallbacks the catalog view gives model `model` (docs/models.md, "Providers"); undefined when it names none. */
  fallbacksOf(model: string): readonly string[] | undefined {
    return this.o.view.get(model)?.fallbacks;
  }

  /** Every catalogued model served by a provider, with the provider's settings (the credentials by reference). */
  providers(): Map<string, CatalogProvider> {
    const out = new Map<string, CatalogProvider>();
    for (const n of this.o.view.names()) {
      const e = this.o.view.get(n);
      if (e?.provider && e.model === n) out.set(n, e.provider);
    }
    return out;
  }

  isOnDemand(model: string): boolean {
    return this.o.view.get(model)?.mode === 'on-demand';
  }

  /** Reports use of an on-demand model (at most once per touchEveryMs); `urgent` also wakes the scheduler. */
  touch(model: string, urgent = false, now = Date.now()): void {
    if (!this.isOnDemand(model)) return;
    const last = this.touched.get(model) ?? 0;
    if (!urgent && now - last < (this.o.touchEveryMs ?? 1_000)) return;
    this.touched.set(model, now);
    void this.o.view.touch(model, now, urgent).catch((e) => this.o.log?.debug({ err: (e as Error).message, model }, 'on-demand: could not report use'));
  }

  /**
   * A request for `model` found no replica. For an on-demand model: report
   * it, wait up to holdMs for `ready()` to turn true (re-checked whenever the
   * endpoint source changes), and throw `model_loading` if it does not.
   * Returns false (nothing done) for any other model.
   */
  async hold(model: string, ready: () => boolean, signal: AbortSignal): Promise<boolean> {
    if (!this.isOnDemand(model)) return false;
    this.touch(model, true);
    if (!ready()) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          unsub();
          signal.removeEventListener('abort', done);
          resolve();
        };
        const t = setTimeout(done, this.o.holdMs);
        const unsub = this.o.subscribe(() => {
          if (ready()) done();
        });
        signal.addEventListener('abort', done, { once: true });
      });
    }
    if (ready()) return true;
    const e = this.o.view.get(model);
    throw new LlmgwError('LLMGW_ERR_MODEL_LOADING', `the model \`${model}\` is being loaded; retry in ${e?.retryAfterS ?? 10} s`, {
      retryAfterSeconds: e?.retryAfterS ?? 10,
    });
  }

  async close(): Promise<void> {
    await this.o.view.close();
    this.o.onClose?.();
  }
}

import type { Redis } from 'ioredis';
import { decodeCatalogEntry, modelCatalogKeys, type CatalogEntry } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import type { Logger } from '@llmgw/observability';

/**
 * On-demand loading, the router's side (upstream notes): the catalog view
 * the placement-scheduler publishes in Redis says which names are catalogued
 * and how each runs; a request for an on-demand model with no replica is
 * held briefly, then answered 503 `model_loading` with Retry-After, and every
 * request for such a model is reported as use so its replicas stay up.
 * Names in no catalog keep getting the unknown-model 404.
 */
export interface OnDemandOptions {
  /** A `commands` connection from the service host (`ctx.redis`), which also closes it. */
  redis: Redis;
  keyPrefix: string;
  /** How long a request waits for a replica before `model_loading`, ms. */
  holdMs: number;
  /** How often the catalog view is re-read, ms. */
  refreshMs?: number;
  /** Use of one model is reported at most this often, ms. */
  touchEveryMs?: number;
  /** Change notifications of the endpoint source (a held request re-checks on each). */
  subscribe: (cb: () => void) => () => void;
  log?: Logger;
}

export class OnDemand {
  private entries = new Map<string, CatalogEntry>();
  private readonly keys: ReturnType<typeof modelCatalogKeys>;
  private readonly redis: Redis;
  private readonly touched = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  private constructor(private readonly o: OnDemandOptions) {
    this.keys = modelCatalogKeys(o.keyPrefix);
    this.redis = o.redis;
  }

  static async open(o: OnDemandOptions): Promise<OnDemand> {
    const d = new OnDemand(o);
    if (d.redis.status !== 'ready') o.log?.warn({}, 'on-demand catalog: redis unreachable; on-demand models answer as unknown until it is');
    await d.refresh();
    d.timer = setInterval(() => void d.refresh(), o.refreshMs ?? 5_000);
    d.timer.unref();
    return d;
  }

  /** Re-reads the catalog view; keeps the last one when Redis fails. */
  async refresh(): Promise<void> {
    try {
      const raw = await this.redis.hgetall(this.keys.catalog);
      const next = new Map<string, CatalogEntry>();
      for (const [name, json] of Object.entries(raw)) {
        const e = decodeCatalogEntry(json);
        if (e) next.set(name, e);
      }
      this.entries = next;
    } catch (e) {
      this.o.log?.debug({ err: (e as Error).message }, 'on-demand catalog: refresh failed; keeping the last view');
    }
  }

  /** The canonical model a catalogued name (or alias) resolves to. */
  resolve(name: string): string | undefined {
    return this.entries.get(name)?.model;
  }

  isOnDemand(model: string): boolean {
    return this.entries.get(model)?.mode === 'on-demand';
  }

  /** Reports use of an on-demand model (at most once per touchEveryMs); `urgent` also wakes the scheduler. */
  touch(model: string, urgent = false, now = Date.now()): void {
    if (!this.isOnDemand(model)) return;
    const last = this.touched.get(model) ?? 0;
    if (!urgent && now - last < (this.o.touchEveryMs ?? 1_000)) return;
    this.touched.set(model, now);
    const m = this.redis.multi().hset(this.keys.demand, model, String(now));
    if (urgent) m.publish(this.keys.demandChannel, model);
    void m.exec().catch((e) => this.o.log?.debug({ err: (e as Error).message, model }, 'on-demand: could not report use'));
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
    const e = this.entries.get(model);
    throw new LlmgwError('LLMGW_ERR_MODEL_LOADING', `the model \`${model}\` is being loaded; retry in ${e?.retryAfterS ?? 10} s`, { retryAfterSeconds: e?.retryAfterS ?? 10 });
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
  }
}

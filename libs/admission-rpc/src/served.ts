/**
 * Which (model, pool) pairs have endpoints, as the admission service last
 * read its endpoint source. An Acquire naming only pools nobody serves the
 * model in is refused at once instead of waiting out its deadline
 * (docs/admission.md, "Unknown models and pools").
 */
export class ServedPools {
  private keys = new Set<string>();
  private loaded = false;
  private waiters = new Set<() => void>();

  /** Replaces the set from the endpoint list (draining endpoints count: their replacement is coming). */
  update(endpoints: ReadonlyArray<{ model: string; pool: string }>): void {
    const keys = new Set<string>();
    for (const e of endpoints) keys.add(`${e.model}\u0000${e.pool}`);
    this.keys = keys;
    this.loaded = true;
    const w = [...this.waiters];
    this.waiters.clear();
    for (const f of w) f();
  }

  /**
   * Whether some endpoint serves `model` in one of `pools` (an endpoint
   * without a model serves every model of its pool); undefined before the
   * first update (nothing is known yet, so nothing is refused).
   */
  serves(model: string, pools: readonly string[]): boolean | undefined {
    if (!this.loaded) return undefined;
    return pools.some((p) => this.keys.has(`${model}\u0000${p}`) || this.keys.has(`\u0000${p}`));
  }

  /** How many callers wait in `next` for the next update. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Resolves at the next update, after `ms`, or when `signal` aborts, whichever comes first. */
  next(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * A read shared by every page view for a short while (docs/portal.md,
 * "Performance"): a fresh value is served as it is; an older one (up to
 * `staleMs`) is served at once while one refresh runs behind it; past that,
 * or after `invalidate()` (an action changed it), the next read waits for a
 * fresh value. Concurrent reads share one call.
 */
export class Snapshot<T> {
  private value?: { v: T; at: number };
  private inflight?: Promise<T>;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly o: { freshMs: number; staleMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  private refresh(): Promise<T> {
    this.inflight ??= this.load()
      .then((v) => {
        this.value = { v, at: this.now() };
        return v;
      })
      .finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  async get(): Promise<T> {
    const age = this.value ? this.now() - this.value.at : Infinity;
    if (age <= this.o.freshMs) return this.value!.v;
    if (age <= this.o.staleMs) {
      this.refresh().catch(() => undefined);
      return this.value!.v;
    }
    return this.refresh();
  }

  invalidate(): void {
    this.value = undefined;
  }
}

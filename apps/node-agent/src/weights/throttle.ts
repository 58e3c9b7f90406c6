/**
 * A token bucket shared by every download of one agent: together they carry
 * at most `bytesPerSecond` (0 = no cap). A burst of one second is allowed.
 */
export class Throttle {
  private tokens: number;
  private last: number;
  constructor(
    readonly bytesPerSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = bytesPerSecond;
    this.last = now();
  }

  /** Waits until `n` bytes may pass. */
  async take(n: number, signal?: AbortSignal): Promise<void> {
    if (this.bytesPerSecond <= 0) return;
    for (;;) {
      const t = this.now();
      this.tokens = Math.min(this.bytesPerSecond, this.tokens + ((t - this.last) / 1000) * this.bytesPerSecond);
      this.last = t;
      if (this.tokens >= Math.min(n, this.bytesPerSecond)) {
        this.tokens -= n;
        return;
      }
      signal?.throwIfAborted();
      const waitMs = Math.max(5, Math.ceil(((Math.min(n, this.bytesPerSecond) - this.tokens) / this.bytesPerSecond) * 1000));
      await new Promise((r) => setTimeout(r, Math.min(100, waitMs)));
    }
  }
}

/**
 * A token bucket shared by every download of one agent: together they carry
 * at most `bytesPerSecond` (0 = no cap). The bucket holds an eighth of a
 * second. A chunk larger than that passes once the bucket is full and leaves
 * it in debt, so the average keeps to the cap, and a download that starts on
 * a full bucket reads close to the cap in its first second (a bucket of a
 * whole second showed twice the cap there).
 */
export class Throttle {
  /** What the bucket holds when full. */
  readonly burst: number;
  private tokens: number;
  private last: number;
  constructor(
    readonly bytesPerSecond: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.burst = bytesPerSecond / 8;
    this.tokens = this.burst;
    this.last = now();
  }

  /** Waits until `n` bytes may pass. */
  async take(n: number, signal?: AbortSignal): Promise<void> {
    if (this.bytesPerSecond <= 0) return;
    const need = Math.min(n, this.burst);
    for (;;) {
      const t = this.now();
      this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.bytesPerSecond);
      this.last = t;
      if (this.tokens >= need) {
        this.tokens -= n;
        return;
      }
      signal?.throwIfAborted();
      const waitMs = Math.max(5, Math.ceil(((need - this.tokens) / this.bytesPerSecond) * 1000));
      await this.sleep(Math.min(100, waitMs));
    }
  }
}

/**
 * A token bucket shared by every download of one agent: together they carry
 * at most `bytesPerSecond` (0 = no cap). The bucket holds an eighth of a
 * second. A chunk larger than that passes once the bucket is full and leaves
 * it in debt, so the average keeps to the cap, and a download that starts on
 * a full bucket reads close to the cap in its first second (a bucket of a
 * whole second showed twice the cap there). The download loop hands it pieces
 * of at most the bucket (`piece`), so a large chunk is paced, not passed whole.
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

  /** How much of `n` bytes to pass at once: at most the bucket (all of it when there is no cap). */
  piece(n: number): number {
    return this.bytesPerSecond > 0 ? Math.max(1, Math.min(n, Math.floor(this.burst))) : n;
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

/**
 * Calls that arrive together share one flush (docs/accounting.md#batched-reserves-and-settles):
 * the first call of a batch schedules the flush for the end of the current turn of the event
 * loop (setImmediate: every request the poll phase has read by then joins it), or flushes at
 * once when `max` calls are waiting. Each call gets its own item's answer, or the batch's error.
 */
export class Batcher<I, O> {
  private queue: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;
  /** Flushes so far (each one script call). */
  flushes = 0;

  constructor(
    private readonly flush: (items: I[]) => Promise<O[]>,
    private readonly max = 128,
  ) {}

  call(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length >= this.max) this.run();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.run();
        });
      }
    });
  }

  private run(): void {
    const batch = this.queue;
    if (!batch.length) return;
    this.queue = [];
    this.flushes++;
    let out: Promise<O[]>;
    try {
      out = this.flush(batch.map((b) => b.item));
    } catch (e) {
      out = Promise.reject(e);
    }
    out.then(
      (res) => batch.forEach((b, i) => b.resolve(res[i])),
      (e) => batch.forEach((b) => b.reject(e)),
    );
  }
}

import type { LedgerRecord, UsageLedger } from '@llmgw/stores';
import type { DurableEnds } from './durable-end';

export interface LedgerBufferOptions {
  ledger: Pick<UsageLedger, 'append'>;
  /** Most records kept in memory while the ledger is unreachable (`tenancy.ledger_buffer`). */
  capacity: number;
  /** The responses whose last bytes wait for their record (released once it is written or buffered). */
  ends: DurableEnds;
  onDropped(): void;
  logFailure(obj: object, msg: string): void;
  /** How often buffered records are retried. */
  retryMs?: number;
}

/**
 * Usage records on their way to the ledger: each append releases its
 * response's held end when it is acknowledged; a failed one keeps the record
 * in memory (up to `capacity`, then counted as dropped) and a timer retries
 * the buffer in order.
 */
export class LedgerBuffer {
  private readonly buffered: LedgerRecord[] = [];
  private pending = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: LedgerBufferOptions) {
    this.timer = setInterval(() => {
      if (this.buffered.length) void this.flush().catch(() => {});
    }, o.retryMs ?? 1000);
    this.timer.unref();
  }

  /** Records held in memory. */
  get size(): number {
    return this.buffered.length;
  }

  /**
   * Waits for `write` (the record's append), then lets the response's held end go; a failed
   * write keeps the record in memory for the retry loop (`alsoFailed` is told first).
   */
  track(full: LedgerRecord, write: Promise<unknown>, alsoFailed?: (e: unknown) => void): void {
    this.pending++;
    write.then(
      () => {
        this.pending--;
        this.o.ends.release(full.requestId);
      },
      (e) => {
        this.pending--;
        alsoFailed?.(e);
        if (this.buffered.length >= this.o.capacity) this.o.onDropped();
        else this.buffered.push(full);
        this.o.logFailure({ err: (e as Error).message, buffered: this.buffered.length }, 'usage ledger unreachable; record kept in memory');
        this.o.ends.release(full.requestId);
      },
    );
  }

  append(full: LedgerRecord): void {
    this.track(full, this.o.ledger.append(full));
  }

  private async flush(): Promise<void> {
    while (this.buffered.length) {
      await this.o.ledger.append(this.buffered[0]);
      this.buffered.shift();
    }
  }

  /** Stops retrying, waits briefly for appends in flight, then writes what is buffered; throws when the ledger refuses. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    for (let i = 0; i < 50 && this.pending > 0; i++) await new Promise((r) => setTimeout(r, 20));
    await this.flush();
  }
}

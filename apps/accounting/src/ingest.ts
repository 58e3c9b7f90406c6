import type { Logger } from '@llmgw/observability';
import type { LedgerEntry, UsageLedger } from '@llmgw/stores';
import type { Histogram, Counter } from 'prom-client';
import type { UsageStore } from './usage-store';

export interface IngestOptions {
  consumer: string;
  batchIntervalMs: number;
  batchSize: number;
  claimIdleMs: number;
  lastUsedIntervalMs: number;
}

export interface IngestMetrics {
  batchSize: Histogram;
  insertSeconds: Histogram;
  records: Counter<'result'>;
  errors: Counter;
}

/**
 * The usage batch writer (docs/accounting.md#the-usage-ledger-and-the-batch-writer-accounting): reads the ledger as one consumer of
 * the group, flushes every `batchIntervalMs` or `batchSize` records in one
 * idempotent transaction, and only then acknowledges. If the database is
 * down the batch is kept and retried (and nothing new is read), so the
 * records wait in the ledger. On start it first re-reads its own pending
 * records, and every so often claims those of a consumer that died.
 */
export class UsageIngester {
  private running = false;
  private loop?: Promise<void>;
  private buffer: LedgerEntry[] = [];
  /** The ids in `buffer` (a record claimed again while buffered is taken once). */
  private buffered = new Set<string>();
  /** Ends the current pause() early (stop). */
  private wake?: () => void;
  private firstAt = 0;
  private lastClaim = 0;
  private healthy = true;

  constructor(
    private readonly ledger: UsageLedger,
    private readonly usage: UsageStore,
    private readonly opts: IngestOptions,
    private readonly log: Logger,
    private readonly metrics: IngestMetrics,
  ) {}

  /** False while the last flush failed (the database is unreachable). */
  get ok(): boolean {
    return this.healthy;
  }

  async start(): Promise<void> {
    // A ledger (Redis) that does not answer does not stop the start: the loop makes the group once it does.
    const grouped = await this.ledger.ensureGroup().then(
      () => true,
      (e: unknown) => {
        this.healthy = false;
        this.log.warn({ err: e }, 'usage ledger unreachable at start; ingesting once it answers');
        return false;
      },
    );
    this.running = true;
    this.loop = this.run(grouped);
  }

  private async run(grouped: boolean): Promise<void> {
    // Our own records from before a restart come first.
    let own = true;
    while (this.running) {
      try {
        if (!grouped) {
          await this.ledger.ensureGroup();
          grouped = true;
          this.healthy = true;
        }
        if (own) {
          const got = await this.ledger.readOwnPending(this.opts.consumer, this.opts.batchSize);
          this.take(got);
          if (got.length < this.opts.batchSize) own = false;
        } else {
          if (Date.now() - this.lastClaim >= Math.max(1000, this.opts.claimIdleMs / 2)) {
            this.lastClaim = Date.now();
            this.take(await this.ledger.claimStale(this.opts.consumer, this.opts.claimIdleMs, this.opts.batchSize));
          }
          const room = this.opts.batchSize - this.buffer.length;
          if (room > 0 && !this.buffer.length) {
            // Nothing buffered: block until the first record of the next batch arrives.
            this.take(await this.ledger.read(this.opts.consumer, room, this.opts.batchIntervalMs));
          } else if (room > 0) {
            // A batch is open: wait for its deadline, then take what came meanwhile in one read.
            // A blocking read here would return for every record appended, waking this process
            // (and making Redis serve it inside each router's settle) once per request.
            await this.pause(this.firstAt + this.opts.batchIntervalMs - Date.now());
            if (this.running) this.take(await this.ledger.read(this.opts.consumer, room, 0));
          }
        }
        if (this.buffer.length && (this.buffer.length >= this.opts.batchSize || Date.now() - this.firstAt >= this.opts.batchIntervalMs || !this.running)) {
          await this.flush();
        }
      } catch (e) {
        if (!this.running) break;
        this.metrics.errors.inc();
        this.healthy = false;
        this.log.warn({ err: e, buffered: this.buffer.length }, 'usage ingestion failed; retrying');
        await this.pause(Math.min(2000, this.opts.batchIntervalMs * 5));
        // The stream (and its group) vanished, e.g. Redis restarted empty: make them again.
        if (/NOGROUP/.test(String((e as Error)?.message))) await this.ledger.ensureGroup().catch(() => {});
      }
    }
  }

  /** Waits `ms`, or until stop() is called. */
  private pause(ms: number): Promise<void> {
    if (ms <= 0 || !this.running) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private take(entries: LedgerEntry[]): void {
    if (!entries.length) return;
    if (!this.buffer.length) this.firstAt = Date.now();
    for (const e of entries) {
      if (this.buffered.has(e.id)) continue;
      this.buffered.add(e.id);
      this.buffer.push(e);
    }
  }

  /** Writes the buffer, then acks it. Throws (keeping the buffer) when the write fails. */
  async flush(): Promise<void> {
    if (!this.buffer.length) return;
    const batch = this.buffer;
    const good = batch.filter((e) => e.record);
    const malformed = batch.length - good.length;
    const t = process.hrtime.bigint();
    const inserted = await this.usage.insertBatch(
      good.map((e) => e.record),
      this.opts.lastUsedIntervalMs,
    );
    this.metrics.insertSeconds.observe(Number(process.hrtime.bigint() - t) / 1e9);
    await this.ledger.ack(batch.map((e) => e.id));
    this.buffer = [];
    this.buffered = new Set();
    this.healthy = true;
    this.metrics.batchSize.observe(batch.length);
    this.metrics.records.inc({ result: 'inserted' }, inserted);
    if (good.length - inserted) this.metrics.records.inc({ result: 'duplicate' }, good.length - inserted);
    if (malformed) {
      this.metrics.records.inc({ result: 'malformed' }, malformed);
      this.log.warn({ malformed }, 'dropped malformed usage records');
    }
    this.log.debug({ batch: batch.length, inserted }, 'usage batch written');
  }

  /** Stops reading, flushes what is buffered (best effort) and returns. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake?.();
    await this.ledger.close();
    await this.loop?.catch(() => {});
    await this.flush().catch((e) => this.log.warn({ err: e, left: this.buffer.length }, 'final usage flush failed; records stay pending in the ledger'));
  }
}

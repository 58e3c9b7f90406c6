import type { LedgerEntry, LedgerRecord, UsageLedger } from './ledger';

interface Pending {
  consumer: string;
  deliveredAt: number;
}

/** The in-process ledger: a bounded log with one consumer group, as the Redis stream does it. */
export class MemoryUsageLedger implements UsageLedger {
  private readonly log = new Map<string, LedgerRecord>();
  private readonly order: string[] = [];
  /** Index in `order` of the first never-delivered entry. */
  private cursor = 0;
  private readonly pending = new Map<string, Pending>();
  private seq = 0;
  private lastMs = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly maxLen = 1_000_000) {}

  async append(rec: LedgerRecord): Promise<string> {
    const ms = Math.max(Date.now(), this.lastMs);
    this.seq = ms === this.lastMs ? this.seq + 1 : 0;
    this.lastMs = ms;
    const id = `${ms}-${this.seq}`;
    this.log.set(id, structuredClone(rec));
    this.order.push(id);
    while (this.order.length - this.trimmedHead > this.maxLen) this.dropHead();
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
    return id;
  }

  private trimmedHead = 0;

  private dropHead(): void {
    const id = this.order[this.trimmedHead++];
    this.log.delete(id);
    this.pending.delete(id);
    if (this.cursor < this.trimmedHead) this.cursor = this.trimmedHead;
    // Compact now and then so the array does not grow without bound.
    if (this.trimmedHead > 10_000 && this.trimmedHead * 2 > this.order.length) {
      this.order.splice(0, this.trimmedHead);
      this.cursor -= this.trimmedHead;
      this.trimmedHead = 0;
    }
  }

  async ensureGroup(): Promise<void> {}

  async read(consumer: string, count: number, blockMs: number): Promise<LedgerEntry[]> {
    if (this.cursor >= this.order.length && blockMs > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, blockMs);
        function done() {
          clearTimeout(t);
          resolve();
        }
        this.waiters.push(done);
      });
    }
    const out: LedgerEntry[] = [];
    while (this.cursor < this.order.length && out.length < count) {
      const id = this.order[this.cursor++];
      const rec = this.log.get(id);
      if (!rec) continue;
      this.pending.set(id, { consumer, deliveredAt: Date.now() });
      out.push({ id, record: structuredClone(rec) });
    }
    return out;
  }

  async readOwnPending(consumer: string, count: number): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    for (const [id, p] of this.pending) {
      if (out.length >= count) break;
      const rec = this.log.get(id);
      if (p.consumer === consumer && rec) out.push({ id, record: structuredClone(rec) });
    }
    return out;
  }

  async claimStale(consumer: string, minIdleMs: number, count: number): Promise<LedgerEntry[]> {
    const now = Date.now();
    const out: LedgerEntry[] = [];
    for (const [id, p] of this.pending) {
      if (out.length >= count) break;
      const rec = this.log.get(id);
      if (!rec || now - p.deliveredAt < minIdleMs) continue;
      this.pending.set(id, { consumer, deliveredAt: now });
      out.push({ id, record: structuredClone(rec) });
    }
    return out;
  }

  async ack(ids: string[]): Promise<void> {
    for (const id of ids) {
      if (this.pending.delete(id)) this.log.delete(id);
    }
    // Drop acknowledged entries from the head so `length` counts only live entries.
    while (this.trimmedHead < this.cursor && !this.log.has(this.order[this.trimmedHead])) this.dropHead();
  }

  async depth(): Promise<{ length: number; pending: number }> {
    return { length: this.log.size, pending: this.pending.size };
  }

  /** Wakes blocked readers; the ledger stays usable (it is shared process-wide in embedded mode). */
  async close(): Promise<void> {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

import type { UsageRecord } from '@llmgw/contracts';

/** A usage record as it travels the ledger: §7.9.3 fields, the request id, and its cost. */
export interface LedgerRecord extends UsageRecord {
  /** Unique per record (minted by the router): the idempotency key of the insert, since request ids may repeat. */
  recordId: string;
  /** Billable cost in integer micro-units, priced by the router (plan §7.9.4). */
  costMicros: number;
}

/** One delivered entry; ack its id once the record is durable elsewhere. */
export interface LedgerEntry {
  id: string;
  record: LedgerRecord;
}

/**
 * The usage ledger (plan §7.9.3): routers append completed requests; the
 * accounting service reads them as a consumer group, writes them to the
 * database idempotently by request id, then acknowledges. Entries a reader
 * took but never acknowledged (it died) stay pending and are claimed by a
 * live reader after `minIdleMs`, so a kill loses nothing. The log is bounded
 * (oldest entries are trimmed past `maxLen`).
 *
 * Redis stream + consumer group, or the in-process equivalent.
 */
export interface UsageLedger {
  append(rec: LedgerRecord): Promise<string>;
  /** Creates the consumer group if needed (idempotent). */
  ensureGroup(): Promise<void>;
  /** New entries for `consumer`, waiting up to `blockMs` when there are none. */
  read(consumer: string, count: number, blockMs: number): Promise<LedgerEntry[]>;
  /** Entries already delivered to `consumer` and not acknowledged (e.g. after its restart). */
  readOwnPending(consumer: string, count: number): Promise<LedgerEntry[]>;
  /** Takes over entries pending on any consumer for at least `minIdleMs`. */
  claimStale(consumer: string, minIdleMs: number, count: number): Promise<LedgerEntry[]>;
  ack(ids: string[]): Promise<void>;
  /** Entries in the log, and entries delivered but not acknowledged. */
  depth(): Promise<{ length: number; pending: number }>;
  close(): Promise<void>;
}

/** Parses a record from the wire; undefined for anything malformed (it is acked and dropped). */
export function decodeLedgerRecord(json: string): LedgerRecord | undefined {
  try {
    const r = JSON.parse(json) as LedgerRecord;
    if (typeof r?.requestId !== 'string' || typeof r.keyId !== 'string' || typeof r.ts !== 'number') return undefined;
    if (typeof r.recordId !== 'string' || !r.recordId) r.recordId = r.requestId;
    return r;
  } catch {
    return undefined;
  }
}

import { parseJson, type UsageRecord } from '@llmgw/contracts';
import { type ContractLog, USAGE_RECORD_VERSION, usageRecordSchema } from './redis-contracts';

/** A usage record as it travels the ledger: the usage record's fields (docs/wire-contracts.md#redis-contracts), the request id, and its cost. */
export interface LedgerRecord extends UsageRecord {
  /** Unique per record (minted by the router): the idempotency key of the insert, since request ids may repeat. */
  recordId: string;
  /** Billable cost in integer micro-units, priced by the router (docs/accounting.md#prices-and-budgets). */
  costMicros: number;
}

/** One delivered entry; ack its id once the record is durable elsewhere. */
export interface LedgerEntry {
  id: string;
  record: LedgerRecord;
}

/**
 * The usage ledger (docs/accounting.md#the-usage-ledger-and-the-batch-writer-accounting): routers append completed requests; the
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

/** Parses a record from the wire (usage record v1, `usageRecordSchema`); undefined for anything malformed (it is acked and dropped). */
export function decodeLedgerRecord(json: string, log?: ContractLog, id?: string): LedgerRecord | undefined {
  const r = parseJson(usageRecordSchema, json);
  if (!r.ok) {
    log?.warn({ entry: id, error: r.error }, 'usage ledger: skipping a record that is not a valid usage record v1');
    return undefined;
  }
  const { v: _v, recordId, ...rec } = r.value;
  return { ...rec, recordId: recordId || rec.requestId };
}

/** The stream form of a record: usage record v1, stamped with its version. */
export function encodeLedgerRecord(rec: LedgerRecord): string {
  return JSON.stringify({ v: USAGE_RECORD_VERSION, ...rec });
}

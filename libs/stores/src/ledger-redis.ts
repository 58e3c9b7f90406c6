import type { Redis } from 'ioredis';
import { type LedgerEntry, type LedgerRecord, type UsageLedger, decodeLedgerRecord, encodeLedgerRecord } from './ledger';
import { type ContractLog, redisKeys } from './redis-contracts';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

export interface RedisLedgerOptions {
  /** Stream key, default `<prefix>usage`. */
  stream?: string;
  group?: string;
  /** Approximate bound on the stream (XADD MAXLEN ~). */
  maxLen?: number;
  /** Told about every entry that is not a valid usage record (it is skipped and acked). */
  log?: ContractLog;
  /** Opens the blocking reader (the service host's `ctx.redis`, which closes it); default: a duplicate of `redis`. */
  open?: (purpose: string, kind: 'blocking') => Promise<Redis>;
}

type RawEntries = Array<[string, string[]]>;

function toEntries(raw: RawEntries | null | undefined, log?: ContractLog): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  for (const [id, fields] of raw ?? []) {
    if (!fields) continue; // deleted while pending
    const i = fields.indexOf('r');
    if (i < 0) log?.warn({ entry: id }, 'usage ledger: skipping an entry without a record field');
    const rec = i >= 0 ? decodeLedgerRecord(fields[i + 1], log, id) : undefined;
    out.push({ id, record: rec as LedgerRecord });
  }
  return out;
}

/**
 * The ledger on a Redis stream with one consumer group. `redis` is used for
 * appends and acks; reads that block get their own connection (`reader`),
 * created on first use, so a blocked XREADGROUP never stalls an append.
 * Malformed entries come back with `record` undefined; the reader acks them.
 */
export class RedisUsageLedger implements UsageLedger {
  readonly stream: string;
  readonly group: string;
  /** Approximate bound on the stream (XADD MAXLEN ~). */
  readonly maxLen: number;
  private reader?: Promise<Redis>;
  private ownReader = false;
  private readonly log?: ContractLog;
  private readonly open?: RedisLedgerOptions['open'];

  constructor(
    private readonly redis: Redis,
    prefix = DEFAULT_REDIS_KEY_PREFIX,
    opts: RedisLedgerOptions = {},
  ) {
    this.stream = opts.stream ?? redisKeys.usageStream(prefix);
    this.log = opts.log;
    this.group = opts.group ?? 'accounting';
    this.maxLen = opts.maxLen ?? 1_000_000;
    this.open = opts.open;
  }

  async append(rec: LedgerRecord): Promise<string> {
    return (await this.redis.xadd(this.stream, 'MAXLEN', '~', this.maxLen, '*', 'r', encodeLedgerRecord(rec))) as string;
  }

  async ensureGroup(): Promise<void> {
    try {
      await this.redis.xgroup('CREATE', this.stream, this.group, '0', 'MKSTREAM');
    } catch (e) {
      if (!/BUSYGROUP/.test(String((e as Error).message))) throw e;
    }
  }

  private readerConn(): Promise<Redis> {
    if (!this.reader) {
      if (this.open) {
        const opened = this.open('usage ledger reader', 'blocking');
        // A failed open is retried on the next read.
        opened.catch(() => (this.reader = undefined));
        this.reader = opened;
      } else {
        const r = this.redis.duplicate({ enableOfflineQueue: true });
        r.on('error', () => {});
        this.ownReader = true;
        this.reader = Promise.resolve(r);
      }
    }
    return this.reader;
  }

  async read(consumer: string, count: number, blockMs: number): Promise<LedgerEntry[]> {
    const args: (string | number)[] = ['GROUP', this.group, consumer, 'COUNT', count];
    if (blockMs > 0) args.push('BLOCK', blockMs);
    args.push('STREAMS', this.stream, '>');
    const res = (await ((await this.readerConn()) as any).xreadgroup(...args)) as Array<[string, RawEntries]> | null;
    return res ? toEntries(res[0][1], this.log) : [];
  }

  async readOwnPending(consumer: string, count: number): Promise<LedgerEntry[]> {
    const res = (await (this.redis as any).xreadgroup('GROUP', this.group, consumer, 'COUNT', count, 'STREAMS', this.stream, '0')) as Array<
      [string, RawEntries]
    > | null;
    return res ? toEntries(res[0][1], this.log) : [];
  }

  async claimStale(consumer: string, minIdleMs: number, count: number): Promise<LedgerEntry[]> {
    const res = (await this.redis.xautoclaim(this.stream, this.group, consumer, minIdleMs, '0', 'COUNT', count)) as [string, RawEntries, string[]?];
    return toEntries(res[1], this.log);
  }

  async ack(ids: string[]): Promise<void> {
    if (!ids.length) return;
    const multi = this.redis.multi();
    multi.xack(this.stream, this.group, ...ids);
    // Acknowledged entries are durable in the database; drop them so the stream's length is the backlog.
    multi.xdel(this.stream, ...ids);
    await multi.exec();
  }

  async depth(): Promise<{ length: number; pending: number }> {
    const [len, pend] = await Promise.all([this.redis.xlen(this.stream), this.redis.xpending(this.stream, this.group).catch(() => [0]) as Promise<unknown[]>]);
    return { length: Number(len), pending: Number((pend as unknown[])[0] ?? 0) };
  }

  async close(): Promise<void> {
    const r = this.reader;
    this.reader = undefined;
    if (r && this.ownReader) (await r).disconnect();
  }
}

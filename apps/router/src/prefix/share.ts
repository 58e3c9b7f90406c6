import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { decode, encode } from '@msgpack/msgpack';
import type { ApproxInsert } from '@llmgw/prefix';
import type { Logger } from '@llmgw/observability';

/**
 * Tier-1 sharing between router replicas (plan §7.5; design in docs/prefix.md).
 *
 * Every local tree insert is published on one Redis pub/sub channel,
 * `<key_prefix>prefix:v1:inserts`, as a msgpack array
 * `[1, origin, model, replica, hashes]` where `hashes` is the chunk hash
 * chain as little-endian float64 bytes (chunk hashes are 53-bit integers, so
 * float64 holds them exactly). Each router applies every message not its own,
 * so all trees converge on the same estimate whichever router a turn reached.
 *
 * Pub/sub is fire-and-forget: a router that was down or disconnected misses
 * inserts (its tree is an estimate anyway, and fills again from traffic); no
 * message carries prompt text. Without Redis a router keeps its own tree.
 */
export const SHARE_VERSION = 1;

export function shareChannel(keyPrefix: string): string {
  return `${keyPrefix}prefix:v${SHARE_VERSION}:inserts`;
}

export function encodeInsert(origin: string, ins: ApproxInsert): Uint8Array {
  const f = new Float64Array(ins.hashes);
  const bytes = new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
  return encode([SHARE_VERSION, origin, ins.model, ins.tenant, bytes]);
}

/** Decodes one message; undefined when it is not a well-formed v1 insert. */
export function decodeInsert(buf: Uint8Array): { origin: string; insert: ApproxInsert } | undefined {
  let v: unknown;
  try {
    v = decode(buf);
  } catch {
    return undefined;
  }
  if (!Array.isArray(v) || v.length !== 5 || v[0] !== SHARE_VERSION) return undefined;
  const [, origin, model, tenant, bytes] = v as [number, unknown, unknown, unknown, unknown];
  if (typeof origin !== 'string' || typeof model !== 'string' || typeof tenant !== 'string' || !(bytes instanceof Uint8Array) || bytes.byteLength % 8 !== 0) return undefined;
  const copy = new Uint8Array(bytes); // aligned for Float64Array
  const hashes = Array.from(new Float64Array(copy.buffer, 0, copy.byteLength / 8));
  if (!hashes.every((h) => Number.isSafeInteger(h) && h >= 0)) return undefined;
  return { origin, insert: { model, tenant, hashes } };
}

export interface PrefixShareOptions {
  url: string;
  keyPrefix: string;
  log: Logger;
  /** Applies another router's insert. */
  apply(ins: ApproxInsert): void;
}

export class PrefixShare {
  readonly origin = randomUUID();
  readonly channel: string;
  private readonly pub: Redis;
  private readonly sub: Redis;
  /** Counters for metrics: sent, received (applied), dropped (publish failed or bad message). */
  readonly stats = { sent: 0, received: 0, dropped: 0 };

  constructor(private readonly opts: PrefixShareOptions) {
    this.channel = shareChannel(opts.keyPrefix);
    const ro = { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: (n: number) => Math.min(n * 200, 2000) };
    this.pub = new Redis(opts.url, ro);
    this.sub = new Redis(opts.url, ro);
    for (const c of [this.pub, this.sub]) c.on('error', (e) => opts.log.debug({ err: e.message }, 'prefix share: redis error'));
    this.sub.on('messageBuffer', (_ch: Buffer, msg: Buffer) => this.receive(msg));
    this.sub.on('ready', () => void this.sub.subscribe(this.channel).catch(() => undefined));
  }

  /** Connects and subscribes; a Redis that is down is retried in the background (the router keeps its own tree meanwhile). */
  async open(): Promise<void> {
    try {
      await Promise.all([this.pub.connect(), this.sub.connect()]);
      await this.sub.subscribe(this.channel);
    } catch (e) {
      this.opts.log.warn({ err: (e as Error).message }, 'prefix share: redis unreachable; this router keeps its own tree until it answers');
    }
  }

  /** True once both connections are up and subscribed. */
  get ready(): boolean {
    return this.pub.status === 'ready' && this.sub.status === 'ready';
  }

  publish(ins: ApproxInsert): void {
    if (this.pub.status !== 'ready') {
      this.stats.dropped++;
      return;
    }
    this.stats.sent++;
    this.pub.publish(this.channel, Buffer.from(encodeInsert(this.origin, ins))).catch(() => this.stats.dropped++);
  }

  private receive(msg: Buffer): void {
    const m = decodeInsert(msg);
    if (!m) {
      this.stats.dropped++;
      return;
    }
    if (m.origin === this.origin) return;
    this.stats.received++;
    this.opts.apply(m.insert);
  }

  async close(): Promise<void> {
    this.pub.disconnect();
    this.sub.disconnect();
  }
}

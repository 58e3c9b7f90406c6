import { unsubscribeIfUp } from '@llmgw/contracts';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { decode, encode } from '@msgpack/msgpack';
import type { ApproxInsert } from '@llmgw/prefix';
import type { Logger } from '@llmgw/observability';

/**
 * Tier-1 sharing between router replicas (design in docs/prefix.md#sharing-the-tree-across-router-replicas).
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
  if (typeof origin !== 'string' || typeof model !== 'string' || typeof tenant !== 'string' || !(bytes instanceof Uint8Array) || bytes.byteLength % 8 !== 0)
    return undefined;
  const copy = new Uint8Array(bytes); // aligned for Float64Array
  const hashes = Array.from(new Float64Array(copy.buffer, 0, copy.byteLength / 8));
  if (!hashes.every((h) => Number.isSafeInteger(h) && h >= 0)) return undefined;
  return { origin, insert: { model, tenant, hashes } };
}

export interface PrefixShareOptions {
  /**
   * Its two connections, from the service host (`ctx.redis`, which logs their
   * loss and return and closes them): one to publish on (kind `commands`: a
   * publish while Redis is away fails at once and is counted as dropped) and
   * one subscribed to the channel (kind `subscriber`).
   */
  publisher: Redis;
  subscriber: Redis;
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

  // The subscriber connection also carries the load share's channel (load-share.ts).
  private readonly onMessage = (ch: Buffer, msg: Buffer) => {
    if (ch.toString() === this.channel) this.receive(msg);
  };

  constructor(private readonly opts: PrefixShareOptions) {
    this.channel = shareChannel(opts.keyPrefix);
    this.pub = opts.publisher;
    this.sub = opts.subscriber;
    this.sub.on('messageBuffer', this.onMessage);
  }

  /** Subscribes; while Redis is away the SUBSCRIBE waits for it (the router keeps its own tree meanwhile). */
  async open(): Promise<void> {
    const subscribed = this.sub.subscribe(this.channel);
    if (this.sub.status !== 'ready') {
      subscribed.catch(() => undefined);
      this.opts.log.warn({}, 'prefix share: redis unreachable; this router keeps its own tree until it answers');
      return;
    }
    await subscribed.catch((e) => this.opts.log.warn({ err: (e as Error).message }, 'prefix share: subscribe failed; this router keeps its own tree'));
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

  /** Stops sharing; the connections are closed by their owner. */
  async close(): Promise<void> {
    this.sub.off('messageBuffer', this.onMessage);
    await unsubscribeIfUp(this.sub, this.channel);
  }
}

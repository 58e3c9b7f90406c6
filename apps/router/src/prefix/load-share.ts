import { unsubscribeIfUp } from '@llmgw/contracts';
import type { Redis } from 'ioredis';
import { decode, encode } from '@msgpack/msgpack';
import type { Logger } from '@llmgw/observability';

/**
 * One view of load across router replicas (docs/prefix.md#one-view-of-load-across-routers).
 *
 * Each router sees only its own in-flight requests, so N routers placing a burst each pick the
 * replica that looks idle to them, and together pile onto it. Every router publishes its in-flight
 * count per replica on one Redis pub/sub channel, `<key_prefix>load:v1:inflight`, as a msgpack
 * array `[1, origin, [replica…], [count…]]` (only the replicas with requests in flight: a message
 * replaces the sender's previous one whole), at most once per `intervalMs` after a change, and
 * every `heartbeatMs` while it has anything in flight. Every router adds the others' latest
 * counts to its own (`EndpointView.inflight`), so every scorer that reads inflight (`inflight`,
 * `session`, `prefix`'s load and balance guard, stage 1's saturation) sees the fleet's load.
 * A sender not heard for `ttlMs` (crashed, partitioned) is forgotten; one that stops sends an
 * empty message. Pub/sub is fire-and-forget: with Redis away each router sees its own load only.
 */
export const LOAD_VERSION = 1;

export function loadChannel(keyPrefix: string): string {
  return `${keyPrefix}load:v${LOAD_VERSION}:inflight`;
}

export function encodeLoad(origin: string, counts: ReadonlyMap<string, number>): Uint8Array {
  const ids: string[] = [];
  const ns: number[] = [];
  for (const [id, n] of counts) {
    if (n <= 0) continue;
    ids.push(id);
    ns.push(n);
  }
  return encode([LOAD_VERSION, origin, ids, ns]);
}

/** Decodes one message; undefined when it is not a well-formed v1 load message. */
export function decodeLoad(buf: Uint8Array): { origin: string; counts: Map<string, number> } | undefined {
  let v: unknown;
  try {
    v = decode(buf);
  } catch {
    return undefined;
  }
  if (!Array.isArray(v) || v.length !== 4 || v[0] !== LOAD_VERSION) return undefined;
  const [, origin, ids, ns] = v as [number, unknown, unknown, unknown];
  if (typeof origin !== 'string' || !Array.isArray(ids) || !Array.isArray(ns) || ids.length !== ns.length) return undefined;
  const counts = new Map<string, number>();
  for (let i = 0; i < ids.length; i++) {
    const n = ns[i];
    if (typeof ids[i] !== 'string' || typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > 1_000_000) return undefined;
    counts.set(ids[i] as string, n);
  }
  return { origin, counts };
}

export interface LoadShareOptions {
  publisher: Pick<Redis, 'status' | 'publish'>;
  /** The subscribed connection (shared with the tree share); messages of other channels are ignored. */
  subscriber: Pick<Redis, 'status' | 'subscribe' | 'unsubscribe' | 'on' | 'off'>;
  keyPrefix: string;
  origin: string;
  log: Logger;
  /** This router's own in-flight count per replica. */
  local(): Iterable<[string, number]>;
  now?: () => number;
  /** Least time between two messages (coalesces a burst of changes). */
  intervalMs?: number;
  /** Re-sent this often while anything is in flight, so receivers keep it. */
  heartbeatMs?: number;
  /** A sender not heard for this long is forgotten. */
  ttlMs?: number;
}

export class LoadShare {
  readonly channel: string;
  /**
   * Counters for tests and metrics (docs/prefix.md#metrics): sent, received (applied), dropped (publish
   * failed or bad message), expired (senders forgotten after `ttlMs` without their closing message).
   */
  readonly stats = { sent: 0, received: 0, dropped: 0, expired: 0 };
  private readonly senders = new Map<string, { at: number; counts: Map<string, number> }>();
  /** Σ over peers of their latest count, per replica. */
  private readonly totals = new Map<string, number>();
  private readonly now: () => number;
  private readonly intervalMs: number;
  private readonly ttlMs: number;
  private lastSent = -Infinity;
  private lastNonEmpty = false;
  private pending: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;
  private readonly onMessage = (ch: Buffer, msg: Buffer) => {
    if (ch.toString() === this.channel) this.receive(msg);
  };

  constructor(private readonly opts: LoadShareOptions) {
    this.channel = loadChannel(opts.keyPrefix);
    this.now = opts.now ?? Date.now;
    this.intervalMs = opts.intervalMs ?? 5;
    this.ttlMs = opts.ttlMs ?? 3000;
    opts.subscriber.on('messageBuffer', this.onMessage);
    this.heartbeat = setInterval(() => {
      this.expire();
      if (this.lastNonEmpty) this.publishNow();
    }, opts.heartbeatMs ?? 1000);
    this.heartbeat.unref();
  }

  async open(): Promise<void> {
    const subscribed = this.opts.subscriber.subscribe(this.channel);
    if (this.opts.subscriber.status !== 'ready') {
      subscribed.catch(() => undefined);
      return;
    }
    await subscribed.catch((e) => this.opts.log.warn({ err: (e as Error).message }, 'load share: subscribe failed; this router sees its own load only'));
  }

  /** The other routers' in-flight requests to `replica`, as they last said. */
  peerInflight(replica: string): number {
    return this.totals.get(replica) ?? 0;
  }

  /** Routers whose counts are added now (heard within the TTL, with something in flight). */
  get peers(): number {
    return this.senders.size;
  }

  /** Σ of the other routers' in-flight counts over every replica. */
  get peerTotal(): number {
    let n = 0;
    for (const v of this.totals.values()) n += v;
    return n;
  }

  /** Age in ms of the oldest message whose counts are added now (0 with none): how stale the view can be. */
  staleness(): number {
    let oldest = Infinity;
    for (const p of this.senders.values()) oldest = Math.min(oldest, p.at);
    return oldest === Infinity ? 0 : Math.max(0, this.now() - oldest);
  }

  /** This router's in-flight counts changed: publish soon (at once when the last message is older than the interval). */
  changed(): void {
    if (this.pending !== undefined || this.closed) return;
    const wait = this.lastSent + this.intervalMs - this.now();
    // setImmediate: every change of this event-loop turn goes out in one message.
    this.pending = wait <= 0 ? setImmediate(() => this.flush()) : setTimeout(() => this.flush(), wait).unref();
  }

  private flush(): void {
    this.pending = undefined;
    this.publishNow();
  }

  private publishNow(): void {
    const counts = new Map(this.opts.local());
    let nonEmpty = false;
    for (const n of counts.values()) if (n > 0) nonEmpty = true;
    // Nothing in flight now and nothing announced before: nothing to say.
    if (!nonEmpty && !this.lastNonEmpty) return;
    this.lastSent = this.now();
    if (this.opts.publisher.status !== 'ready') {
      this.stats.dropped++;
      return;
    }
    this.lastNonEmpty = nonEmpty;
    this.stats.sent++;
    this.opts.publisher.publish(this.channel, Buffer.from(encodeLoad(this.opts.origin, counts))).catch(() => this.stats.dropped++);
  }

  /** Applies one message (exposed for tests through the subscriber's `messageBuffer`). */
  private receive(msg: Buffer): void {
    const m = decodeLoad(msg);
    if (!m) {
      this.stats.dropped++;
      return;
    }
    if (m.origin === this.opts.origin) return;
    this.stats.received++;
    this.forget(m.origin);
    if (m.counts.size > 0) {
      this.senders.set(m.origin, { at: this.now(), counts: m.counts });
      for (const [id, n] of m.counts) this.totals.set(id, (this.totals.get(id) ?? 0) + n);
    }
  }

  private forget(origin: string): void {
    const old = this.senders.get(origin);
    if (!old) return;
    this.senders.delete(origin);
    for (const [id, n] of old.counts) {
      const left = (this.totals.get(id) ?? 0) - n;
      if (left > 0) this.totals.set(id, left);
      else this.totals.delete(id);
    }
  }

  /** Forgets senders not heard within the TTL (a crashed router's requests are not counted for ever). */
  expire(): void {
    const cutoff = this.now() - this.ttlMs;
    for (const [origin, p] of this.senders)
      if (p.at < cutoff) {
        this.stats.expired++;
        this.forget(origin);
      }
  }

  /** Says "nothing in flight" to the others and stops; the connections are closed by their owner. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    if (this.pending !== undefined) {
      clearTimeout(this.pending as NodeJS.Timeout);
      clearImmediate(this.pending as NodeJS.Immediate);
      this.pending = undefined;
    }
    if (this.lastNonEmpty && this.opts.publisher.status === 'ready') {
      await this.opts.publisher.publish(this.channel, Buffer.from(encodeLoad(this.opts.origin, new Map()))).catch(() => undefined);
    }
    this.opts.subscriber.off('messageBuffer', this.onMessage);
    await unsubscribeIfUp(this.opts.subscriber, this.channel);
  }
}

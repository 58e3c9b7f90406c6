import type { Redis } from 'ioredis';
import type { Logger } from '@llmgw/observability';
import { CoalescedReload } from './coalesced-reload';
import { CachedEndpointList } from './endpoint-list';
import type { EndpointWriter } from './memory-source';
import { decodeEndpointRecord, encodeEndpoint, endpointKeys, endpointsChangedSchema } from './redis-contract';
import type { EndpointInfo } from './types';
import { DEFAULT_REDIS_KEY_PREFIX, unsubscribeIfUp } from '@llmgw/contracts';

export interface RedisEndpointSourceOptions {
  /**
   * The connections, opened and closed by their owner (the service host's
   * `ctx.redis`): one for commands (HGETALL) and a pub/sub one for the change
   * channel (kind `subscriber`: SUBSCRIBE waits for the connection and is
   * sent again after a reconnect).
   */
  commands: Redis;
  subscriber: Redis;
  keyPrefix?: string;
  pollIntervalMs?: number;
  log?: Logger;
}

/**
 * Endpoints published in Redis by the control plane (redis-contract.ts),
 * cached locally: loads the hash at start, reloads on every change message
 * and every `pollIntervalMs` (in case a message was missed), keeps serving
 * the last good list whenever Redis is unreachable, and logs and skips
 * entries that are not valid endpoint records.
 */
export class RedisEndpointSource extends CachedEndpointList {
  private readonly keys: ReturnType<typeof endpointKeys>;
  private readonly cmd: Redis;
  private readonly sub: Redis;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private readonly reloads = new CoalescedReload(
    () => this.loadOnce(),
    () => this.closed,
  );

  private readonly onMessage = (ch: string, msg: string) => {
    if (ch !== this.keys.channel) return;
    // The poll catches up with whatever a bad message meant to announce.
    if (!endpointsChangedSchema.safeParse(msg).success)
      return this.opts.log?.warn({ channel: ch, message: msg.slice(0, 100) }, 'endpoint source: ignoring a change message that is not a version number');
    void this.reload();
  };
  /** Back after a reconnect: changes announced meanwhile were missed. */
  private readonly onReady = () => void this.reload();

  private constructor(private readonly opts: RedisEndpointSourceOptions) {
    super();
    this.keys = endpointKeys(opts.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX);
    this.cmd = opts.commands;
    this.sub = opts.subscriber;
  }

  /** Loads the list once (an empty list if Redis is down) and starts watching. */
  static async open(opts: RedisEndpointSourceOptions): Promise<RedisEndpointSource> {
    const s = new RedisEndpointSource(opts);
    await s.start();
    return s;
  }

  private async start(): Promise<void> {
    this.sub.on('message', this.onMessage);
    this.sub.on('ready', this.onReady);
    const subscribed = this.sub.subscribe(this.keys.channel);
    // While Redis is away the SUBSCRIBE waits in the subscriber's queue; start does not.
    if (this.sub.status === 'ready')
      await subscribed.catch((e) => this.opts.log?.warn({ err: (e as Error).message }, 'endpoint source: subscribe failed; changes are seen by the poll'));
    else subscribed.catch(() => undefined);
    if (this.cmd.status !== 'ready') this.opts.log?.warn({}, 'endpoint source: redis unreachable; serving an empty list until it answers');
    this.cmd.on('ready', this.onReady);
    await this.reload();
    this.timer = setInterval(() => void this.reload(), this.opts.pollIntervalMs ?? 10_000);
    this.timer.unref();
  }

  /** Re-reads the hash; coalesces concurrent calls; keeps the old list on failure. */
  reload(): Promise<void> {
    return this.reloads.run();
  }

  private async loadOnce(): Promise<void> {
    if (this.closed) return;
    let raw: Record<string, string>;
    try {
      raw = await this.cmd.hgetall(this.keys.hash);
    } catch (e) {
      this.opts.log?.debug({ err: (e as Error).message }, 'endpoint source: reload failed; keeping the cached list');
      return;
    }
    const list: EndpointInfo[] = [];
    for (const [id, json] of Object.entries(raw)) {
      const e = decodeEndpointRecord(id, json);
      if (e.ok) list.push(e.value);
      else this.opts.log?.warn({ endpoint: id, error: e.error }, 'endpoint source: ignoring an entry that is not a valid endpoint record v1');
    }
    list.sort((a, b) => a.id.localeCompare(b.id));
    if (sameList(list, this.all())) this.touch();
    else this.replace(list, true);
  }

  override async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await super.close();
    await this.reloads.settled();
    this.sub.off('message', this.onMessage);
    this.sub.off('ready', this.onReady);
    this.cmd.off('ready', this.onReady);
    await unsubscribeIfUp(this.sub, this.keys.channel);
  }
}

function sameList(a: readonly EndpointInfo[], b: readonly EndpointInfo[]): boolean {
  return a.length === b.length && a.every((e, i) => JSON.stringify(e) === JSON.stringify(b[i]));
}

/**
 * Writes the layout of redis-contract.ts (endpoint record v1). The control plane publishes with this; tests use
 * it to drive a RedisEndpointSource.
 */
export class RedisEndpointWriter implements EndpointWriter {
  private readonly keys: ReturnType<typeof endpointKeys>;
  constructor(
    private readonly redis: Redis,
    keyPrefix = DEFAULT_REDIS_KEY_PREFIX,
  ) {
    this.keys = endpointKeys(keyPrefix);
  }

  async put(e: EndpointInfo): Promise<void> {
    await this.redis.multi().hset(this.keys.hash, e.id, encodeEndpoint(e)).incr(this.keys.version).exec();
    await this.publish();
  }

  async remove(id: string): Promise<void> {
    await this.redis.multi().hdel(this.keys.hash, id).incr(this.keys.version).exec();
    await this.publish();
  }

  /** Replaces the whole set atomically. */
  async replace(list: readonly EndpointInfo[]): Promise<void> {
    const m = this.redis.multi().del(this.keys.hash);
    for (const e of list) m.hset(this.keys.hash, e.id, encodeEndpoint(e));
    await m.incr(this.keys.version).exec();
    await this.publish();
  }

  /** Deletes the keys this writer owns (tests). */
  async clear(): Promise<void> {
    await this.redis.del(this.keys.hash, this.keys.version);
  }

  private async publish(): Promise<void> {
    const v = await this.redis.get(this.keys.version);
    await this.redis.publish(this.keys.channel, v ?? '0');
  }
}

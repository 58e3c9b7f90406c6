import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { parseJson, DEFAULT_REDIS_KEY_PREFIX, unsubscribeIfUp } from '@llmgw/contracts';
import { type ContractLog, KEY_CACHE_INVALIDATION_VERSION, keyCacheInvalidationSchema, redisKeys } from './redis-contracts';

/**
 * Something on a key's chain changed (a key revoked, a limit set, …). Routers
 * drop every cached principal whose chain includes `scopeType:scopeId`;
 * `all` drops everything.
 */
export interface KeyCacheInvalidation {
  scopeType: 'org' | 'team' | 'project' | 'key' | 'all';
  scopeId: string;
}

/** Key-cache invalidation fan-out: accounting publishes, every router subscribes. */
export interface KeyCacheBus {
  publish(ev: KeyCacheInvalidation): Promise<void>;
  /** Resolves once the subscription is live; returns an unsubscribe function. */
  subscribe(handler: (ev: KeyCacheInvalidation) => void): Promise<() => void>;
  close(): Promise<void>;
}

/** In-process bus (embedded mode: accounting and routers in one process). */
export class MemoryKeyCacheBus implements KeyCacheBus {
  private readonly ee = new EventEmitter();
  constructor() {
    this.ee.setMaxListeners(0);
  }
  async publish(ev: KeyCacheInvalidation): Promise<void> {
    this.ee.emit('inv', { ...ev });
  }
  async subscribe(handler: (ev: KeyCacheInvalidation) => void): Promise<() => void> {
    this.ee.on('inv', handler);
    return () => this.ee.off('inv', handler);
  }
  async close(): Promise<void> {
    this.ee.removeAllListeners();
  }
}

/**
 * Redis pub/sub bus. Subscribing opens a dedicated connection (a subscriber
 * connection can do nothing else). After that connection drops and comes
 * back, subscribers get `{scopeType: 'all'}`, since events may have been missed.
 */
export class RedisKeyCacheBus implements KeyCacheBus {
  readonly channel: string;
  private sub?: Redis;
  private detach?: () => void;
  private readonly handlers = new Set<(ev: KeyCacheInvalidation) => void>();

  /** `open` gives the subscriber connection (the service host's `ctx.redis`, which closes it); default: a duplicate of `redis`. */
  constructor(
    private readonly redis: Redis,
    prefix = DEFAULT_REDIS_KEY_PREFIX,
    private readonly log?: ContractLog,
    private readonly open?: (purpose: string, kind: 'subscriber') => Promise<Redis>,
  ) {
    this.channel = redisKeys.keyCacheChannel(prefix);
  }

  async publish(ev: KeyCacheInvalidation): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify({ v: KEY_CACHE_INVALIDATION_VERSION, scopeType: ev.scopeType, scopeId: ev.scopeId }));
  }

  async subscribe(handler: (ev: KeyCacheInvalidation) => void): Promise<() => void> {
    if (!this.sub) {
      // Queue the SUBSCRIBE until connected, whatever the parent's offline-queue setting.
      let sub: Redis;
      if (this.open) sub = await this.open('key cache subscriber', 'subscriber');
      else {
        sub = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
        sub.on('error', () => {});
      }
      this.sub = sub;
      // Invalidations published while the connection was down are lost: after a
      // reconnect, tell every subscriber that anything may have changed.
      let readyBefore = sub.status === 'ready';
      const onReady = () => {
        if (readyBefore) for (const h of this.handlers) h({ scopeType: 'all', scopeId: '' });
        readyBefore = true;
      };
      const onMessage = (ch: string, msg: string) => {
        if (ch !== this.channel) return;
        const r = parseJson(keyCacheInvalidationSchema, msg);
        // A message that cannot be read still says something changed: the safe reading is "everything".
        if (!r.ok) this.log?.warn({ channel: this.channel, error: r.error }, 'key-cache invalidation is not valid v1; dropping every cached key');
        const ev: KeyCacheInvalidation = r.ok ? { scopeType: r.value.scopeType, scopeId: r.value.scopeId } : { scopeType: 'all', scopeId: '' };
        for (const h of this.handlers) {
          try {
            h(ev);
          } catch (e) {
            this.log?.warn({ err: (e as Error).message }, 'key-cache invalidation handler failed');
          }
        }
      };
      sub.on('ready', onReady);
      sub.on('message', onMessage);
      this.detach = () => {
        sub.off('ready', onReady);
        sub.off('message', onMessage);
      };
      const subscribed = sub.subscribe(this.channel);
      // Resolves once subscribed; but while Redis is away the SUBSCRIBE waits in the queue and the
      // caller does not (cache_ttl covers the gap).
      if (sub.status === 'ready' || this.redis.status === 'ready') await subscribed;
      else subscribed.catch(() => undefined);
    }
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    const sub = this.sub;
    this.sub = undefined;
    this.detach?.();
    if (!sub) return;
    if (this.open) await unsubscribeIfUp(sub, this.channel);
    else sub.disconnect();
  }
}

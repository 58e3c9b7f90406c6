import { Redis, type RedisOptions } from 'ioredis';
import { Dependencies, type Logger } from '@llmgw/observability';

/**
 * What a Redis connection is for; each kind is one set of ioredis options
 * (docs/operations.md, "Redis, leader locks and lost dependencies"):
 * - `commands`: fail fast. No offline queue, one retry: while Redis is away a
 *   command rejects at once and the caller degrades (the router's limits, the
 *   endpoint and catalog views, leader locks, the scheduler's state).
 * - `queued`: commands wait in the offline queue through a reconnect (two
 *   retries): writers that would rather be late than lose a write (the
 *   accounting ledger, inventory's fleet store).
 * - `blocking`: a connection of its own for blocking reads (XREAD BLOCK,
 *   XREADGROUP BLOCK): never gives up on a command (`maxRetriesPerRequest: null`).
 * - `subscriber`: a pub/sub connection (it can do nothing else): SUBSCRIBE waits
 *   for the connection and is sent again after every reconnect.
 */
export type RedisKind = 'commands' | 'queued' | 'blocking' | 'subscriber';

export interface RedisClientOptions {
  /** Default `commands`. */
  kind?: RedisKind;
  /**
   * How long `ctx.redis` waits for the connection before it resolves anyway
   * (ms, default 2000; 0 = do not wait). A Redis that is down does not stop a
   * start: the client keeps reconnecting in the background, and a dependency
   * already known lost is not waited for again.
   */
  readyWaitMs?: number;
}

/** `ctx.redis` as a value a service hands to the parts it builds (libs take clients, apps take this). */
export type RedisConnect = (purpose: string, url: string, opts?: RedisClientOptions) => Promise<Redis>;

/** Reconnects after 200 ms, 400 ms, … at most every 2 s, forever. */
export const redisRetryStrategy = (attempt: number): number => Math.min(attempt * 200, 2000);

const KIND_OPTIONS: Record<RedisKind, RedisOptions> = {
  commands: { maxRetriesPerRequest: 1, enableOfflineQueue: false },
  queued: { maxRetriesPerRequest: 2, enableOfflineQueue: true },
  blocking: { maxRetriesPerRequest: null, enableOfflineQueue: true },
  subscriber: { maxRetriesPerRequest: null, enableOfflineQueue: true, autoResubscribe: true },
};

export const DEFAULT_REDIS_READY_WAIT_MS = 2000;

/** The ioredis options of one kind: the only place they are written. */
export function redisOptions(kind: RedisKind): RedisOptions {
  return {
    lazyConnect: false,
    connectTimeout: 2000,
    retryStrategy: redisRetryStrategy,
    ...KIND_OPTIONS[kind],
  };
}

/** "host:port" of a Redis URL, without credentials (for logs and metric labels). */
export function redisTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || '127.0.0.1'}:${u.port || '6379'}`;
  } catch {
    return 'redis';
  }
}

/** Resolves true once `r` is ready, false after `ms` without it (or when it ends). */
export function redisReady(r: Redis, ms: number): Promise<boolean> {
  if (r.status === 'ready') return Promise.resolve(true);
  if (ms <= 0 || r.status === 'end') return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      r.off('ready', onReady);
      r.off('end', onEnd);
      resolve(ok);
    };
    const onReady = () => done(true);
    const onEnd = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    r.once('ready', onReady);
    r.once('end', onEnd);
  });
}

/**
 * Opens one Redis client of a kind, watched: its connection's loss and return
 * are reported to the dependency `redis <host:port>` (one warn line each per
 * outage, shared by every client of that server), every connection error is
 * logged at debug. Returns the client and how to close it (QUIT when
 * connected, bounded; then disconnect).
 */
export async function openRedis(
  purpose: string,
  url: string,
  opts: RedisClientOptions,
  deps: { log: Logger; dependencies: Dependencies },
): Promise<{ client: Redis; close(): Promise<void> }> {
  const kind = opts.kind ?? 'commands';
  const target = redisTarget(url);
  const dep = deps.dependencies.get(`redis ${target}`);
  const client = new Redis(url, redisOptions(kind));
  let closing = false;
  let wasReady = false;
  client.on('ready', () => {
    wasReady = true;
    dep.ok(purpose);
  });
  client.on('error', (e: Error) => {
    if (closing) return;
    deps.log.debug({ redis: target, purpose, err: e.message }, 'redis connection error');
    dep.lost(e, purpose);
  });
  client.on('close', () => {
    if (!closing && wasReady) dep.lost(new Error('connection closed'), purpose);
  });
  // Not waited for when the server is already known lost: start goes on, the client reconnects.
  const waitMs = opts.readyWaitMs ?? DEFAULT_REDIS_READY_WAIT_MS;
  if (dep.up && !(await redisReady(client, waitMs)) && !closing) dep.lost(new Error(`not connected after ${waitMs} ms`), purpose);
  return {
    client,
    async close() {
      if (closing) return;
      closing = true;
      dep.forget(purpose);
      // Between reconnect attempts there is no socket: disconnect only cancels the next attempt.
      const hasSocket = client.status !== 'end' && client.status !== 'reconnecting' && client.status !== 'wait';
      const ended = new Promise<void>((r) => client.once('end', () => r()));
      if (client.status === 'ready')
        await bounded(
          client.quit().catch(() => undefined),
          1000,
        );
      client.disconnect();
      if (hasSocket) await bounded(ended, 1000);
    },
  };
}

async function bounded(p: Promise<unknown>, ms: number): Promise<void> {
  let t: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise((r) => (t = setTimeout(r, ms)))]);
  clearTimeout(t);
}

/**
 * `ctx.redis` outside a service host (a part built on its own in a test):
 * the same clients, closed together, last opened first, by `close`.
 */
export function redisPool(log: Logger, dependencies = new Dependencies({ log })): { connect: RedisConnect; close(): Promise<void> } {
  const open: Array<() => Promise<void>> = [];
  return {
    async connect(purpose, url, opts = {}) {
      const r = await openRedis(purpose, url, opts, { log, dependencies });
      open.push(() => r.close());
      return r.client;
    },
    async close() {
      while (open.length) await open.pop()!();
    },
  };
}

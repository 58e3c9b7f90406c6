import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';

/**
 * Failed sign-ins counted per account and per address in a sliding window
 * (docs/portal.md, "Security"): past the limit, sign-in answers
 * RESOURCE_EXHAUSTED with the seconds to wait, even with the right password.
 * A success clears the account's count. With Redis configured the counts are
 * shared by every accounting instance (RedisAttemptLimiter); embedded, they
 * are kept in the process (AttemptLimiter).
 */
export interface SigninAttempts {
  /** Seconds until another attempt is allowed; 0 = allowed now. */
  retryAfter(account: string, address: string): Promise<number>;
  fail(account: string, address: string): Promise<void>;
  succeed(account: string): Promise<void>;
}

export interface AttemptLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

const keysOf = (account: string, address: string) => [`a:${account}`, `ip:${address}`];

/** The wait past the limit, given each key's recent failure times (oldest first). */
function waitFor(limits: AttemptLimits, recent: number[][], now: number): number {
  const max = [limits.perAccount, limits.perAddress];
  let wait = 0;
  recent.forEach((list, i) => {
    const m = max[i]!;
    if (list.length >= m) wait = Math.max(wait, Math.ceil((list[list.length - m]! + limits.windowMs - now) / 1000));
  });
  return wait;
}

export class AttemptLimiter implements SigninAttempts {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limits: AttemptLimits,
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string): number[] {
    const since = this.now() - this.limits.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  async retryAfter(account: string, address: string): Promise<number> {
    return waitFor(
      this.limits,
      keysOf(account, address).map((k) => this.recent(k)),
      this.now(),
    );
  }

  async fail(account: string, address: string): Promise<void> {
    for (const key of keysOf(account, address)) this.failures.set(key, [...this.recent(key), this.now()]);
    if (this.failures.size > 100_000) this.failures.delete(this.failures.keys().next().value!);
  }

  async succeed(account: string): Promise<void> {
    this.failures.delete(`a:${account}`);
  }
}

/** The same counts in Redis sorted sets (score = failure time), shared by every accounting instance. */
export class RedisAttemptLimiter implements SigninAttempts {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: AttemptLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async retryAfter(account: string, address: string): Promise<number> {
    const since = this.now() - this.limits.windowMs;
    const m = this.redis.multi();
    for (const k of keysOf(account, address)) m.zremrangebyscore(this.prefix + k, '-inf', String(since)).zrange(this.prefix + k, '0', '-1', 'WITHSCORES');
    const res = (await m.exec()) ?? [];
    const lists = [res[1], res[3]].map((r) => {
      const flat = (r?.[1] as string[] | undefined) ?? [];
      return flat.filter((_, i) => i % 2 === 1).map(Number);
    });
    return waitFor(this.limits, lists, this.now());
  }

  async fail(account: string, address: string): Promise<void> {
    const at = this.now();
    const m = this.redis.multi();
    for (const k of keysOf(account, address))
      m.zadd(this.prefix + k, at, `${at}-${randomBytes(4).toString('hex')}`).pexpire(this.prefix + k, this.limits.windowMs);
    await m.exec();
  }

  async succeed(account: string): Promise<void> {
    await this.redis.del(`${this.prefix}a:${account}`);
  }
}

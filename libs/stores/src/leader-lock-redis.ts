import type { Redis } from 'ioredis';
import type { LeaderLock } from './leader-lock';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

// Value is "<token> <owner>"; the fencing counter lives beside it and only grows.
const ACQUIRE = `
local v = redis.call('GET', KEYS[1])
if v then
  local sp = string.find(v, ' ', 1, true)
  if string.sub(v, sp + 1) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return tonumber(string.sub(v, 1, sp - 1))
  end
  return false
end
local t = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], t .. ' ' .. ARGV[1], 'PX', ARGV[2])
return t`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[2] .. ' ' .. ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 0`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[2] .. ' ' .. ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * The Redis leader lock: `<prefix>leader:<name>` holds "<token> <owner>" with
 * a PX expiry; `<prefix>leader:<name>:fence` is the token counter. Each
 * operation is one Lua script, so check-and-set is atomic.
 */
export class RedisLeaderLock implements LeaderLock {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = DEFAULT_REDIS_KEY_PREFIX,
  ) {}

  private key(name: string) {
    return `${this.prefix}leader:${name}`;
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<number | undefined> {
    const r = await this.redis.eval(ACQUIRE, 2, this.key(name), `${this.key(name)}:fence`, owner, String(Math.ceil(ttlMs)));
    return r === null || r === undefined ? undefined : Number(r);
  }

  async renew(name: string, owner: string, token: number, ttlMs: number): Promise<boolean> {
    return Number(await this.redis.eval(RENEW, 1, this.key(name), owner, String(token), String(Math.ceil(ttlMs)))) === 1;
  }

  async release(name: string, owner: string, token: number): Promise<boolean> {
    return Number(await this.redis.eval(RELEASE, 1, this.key(name), owner, String(token))) === 1;
  }

  async holder(name: string) {
    const v = await this.redis.get(this.key(name));
    if (!v) return undefined;
    const sp = v.indexOf(' ');
    return { owner: v.slice(sp + 1), token: Number(v.slice(0, sp)) };
  }
}

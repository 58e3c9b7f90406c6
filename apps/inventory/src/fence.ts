import type { Redis } from 'ioredis';

/**
 * The highest leader fencing token seen on shard commands: a command with a
 * lower one comes from a deposed placement-scheduler leader and is refused.
 */
export interface FenceStore {
  /** Records `token` if it is the highest; false when a higher one was already seen. 0 always passes. */
  admit(token: number): Promise<boolean>;
}

export class MemoryFence implements FenceStore {
  private max = 0;
  async admit(token: number): Promise<boolean> {
    if (token === 0) return true;
    if (token < this.max) return false;
    this.max = token;
    return true;
  }
}

const ADMIT = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local t = tonumber(ARGV[1])
if t < cur then return 0 end
redis.call('SET', KEYS[1], t)
return 1
`;

/** `<prefix>inventory:fence`: the highest token, shared by every instance. */
export class RedisFence implements FenceStore {
  private readonly key: string;
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}inventory:fence`;
  }
  async admit(token: number): Promise<boolean> {
    if (token === 0) return true;
    return (await this.redis.eval(ADMIT, 1, this.key, token)) === 1;
  }
}

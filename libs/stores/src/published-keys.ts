import type { Redis } from 'ioredis';
import type { z } from 'zod';
import { type Principal, parseJson, DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';
import { type ContractLog, PUBLISHED_KEY_VERSION, publishedKeySchema, redisKeys } from './redis-contracts';

/** One API key as accounting published it (docs/wire-contracts.md#redis-contracts, "Published key"). */
export type PublishedKey = z.output<typeof publishedKeySchema>;

/**
 * The published key records: accounting writes, routers read while accounting
 * cannot answer (docs/accounting.md, "When accounting is unreachable").
 * A write never replaces a tombstone (`state: revoked`) nor a record with a
 * higher `rev`, so a slow backfill cannot bring a revoked key back.
 */
export interface PublishedKeys {
  /** Writes each record unless what is there wins (see above); resolves with how many were written. */
  put(records: readonly PublishedKey[]): Promise<number>;
  /** The record of `keyHash`; undefined when there is none or it does not parse (logged). */
  get(keyHash: string): Promise<PublishedKey | undefined>;
}

/**
 * The record of an active key whose principal accounting resolved at `rev`
 * (unix ms, read before the state was). `principal.band` is '' when neither
 * the key nor its project names one.
 */
export function activeKeyRecord(keyHash: string, p: Principal, rev: number): PublishedKey {
  return {
    v: PUBLISHED_KEY_VERSION,
    state: 'active',
    keyHash,
    rev,
    keyId: p.keyId,
    keyPrefix: p.keyPrefix,
    projectId: p.projectId,
    teamId: p.teamId,
    orgId: p.orgId,
    band: p.band,
    ...(p.routingProfile ? { routingProfile: p.routingProfile } : {}),
    ...(p.expiresAt !== undefined ? { expiresAt: p.expiresAt } : {}),
    limits: {
      rpm: p.limits.rpm.map((x) => ({ scope: x.scope, limit: x.limit })),
      tpm: p.limits.tpm.map((x) => ({ scope: x.scope, limit: x.limit })),
      budgets: p.limits.budgets.map((x) => ({ scope: x.scope, limitMicros: x.limitMicros, period: x.period })),
      ...(p.limits.allowedModels !== undefined ? { allowedModels: [...p.limits.allowedModels] } : {}),
    },
  };
}

/** The tombstone of a revoked key. */
export function revokedKeyRecord(keyHash: string, keyId: string, rev: number): PublishedKey {
  return { v: PUBLISHED_KEY_VERSION, state: 'revoked', keyHash, rev, keyId };
}

/** A record → the principal a router serves (`defaultBand` when it names none); null for a tombstone. */
export function principalOfRecord(r: PublishedKey, defaultBand: string): Principal | null {
  if (r.state !== 'active') return null;
  return {
    keyId: r.keyId,
    keyPrefix: r.keyPrefix,
    projectId: r.projectId,
    teamId: r.teamId,
    orgId: r.orgId,
    band: r.band || defaultBand,
    ...(r.routingProfile ? { routingProfile: r.routingProfile } : {}),
    ...(r.expiresAt !== undefined ? { expiresAt: r.expiresAt } : {}),
    limits: {
      rpm: r.limits.rpm.map((x) => ({ ...x })),
      tpm: r.limits.tpm.map((x) => ({ ...x })),
      budgets: r.limits.budgets.map((x) => ({ ...x })),
      ...(r.limits.allowedModels !== undefined ? { allowedModels: [...r.limits.allowedModels] } : {}),
    },
  };
}

/** Whether `next` may replace `cur` (the rule both implementations follow). */
export function supersedes(next: Pick<PublishedKey, 'state' | 'rev'>, cur: Pick<PublishedKey, 'state' | 'rev'> | undefined): boolean {
  if (!cur) return true;
  if (cur.state === 'revoked') return false;
  return next.state === 'revoked' || next.rev >= cur.rev;
}

/** In-process records (embedded mode: accounting and routers in one process). */
export class MemoryPublishedKeys implements PublishedKeys {
  private readonly map = new Map<string, string>();

  async put(records: readonly PublishedKey[]): Promise<number> {
    let n = 0;
    for (const r of records) {
      const cur = this.map.get(r.keyHash);
      if (!supersedes(r, cur === undefined ? undefined : (JSON.parse(cur) as PublishedKey))) continue;
      // Stored as text, as in Redis: a reader never shares an object with the writer.
      this.map.set(r.keyHash, JSON.stringify(r));
      n++;
    }
    return n;
  }

  async get(keyHash: string): Promise<PublishedKey | undefined> {
    const s = this.map.get(keyHash);
    return s === undefined ? undefined : (JSON.parse(s) as PublishedKey);
  }

  get size(): number {
    return this.map.size;
  }
}

// ARGV: record JSON, its state, its rev. Same rule as `supersedes`; an unreadable current value is replaced.
const PUT_LUA = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local ok, d = pcall(cjson.decode, cur)
  if ok and type(d) == 'table' then
    if d.state == 'revoked' then return 0 end
    if ARGV[2] ~= 'revoked' and tonumber(d.rev) and tonumber(d.rev) > tonumber(ARGV[3]) then return 0 end
  end
end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

/** Records on Redis: STRING `<prefix>apikey:<hash>` each, written by one Lua check-and-set. */
export class RedisPublishedKeys implements PublishedKeys {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = DEFAULT_REDIS_KEY_PREFIX,
    private readonly log?: ContractLog,
  ) {}

  async put(records: readonly PublishedKey[]): Promise<number> {
    if (!records.length) return 0;
    const p = this.redis.pipeline();
    for (const r of records) p.eval(PUT_LUA, 1, redisKeys.publishedKey(this.prefix, r.keyHash), JSON.stringify(r), r.state, String(r.rev));
    const res = (await p.exec()) ?? [];
    let n = 0;
    for (const [err, v] of res) {
      if (err) throw err;
      n += Number(v) === 1 ? 1 : 0;
    }
    return n;
  }

  async get(keyHash: string): Promise<PublishedKey | undefined> {
    const key = redisKeys.publishedKey(this.prefix, keyHash);
    const s = await this.redis.get(key);
    if (s === null) return undefined;
    const r = parseJson(publishedKeySchema, s);
    if (!r.ok) {
      this.log?.warn({ key, error: r.error }, 'published key record is not valid v1; ignoring it');
      return undefined;
    }
    if (r.value.keyHash !== keyHash) {
      this.log?.warn({ key }, 'published key record names another hash; ignoring it');
      return undefined;
    }
    return r.value;
  }
}

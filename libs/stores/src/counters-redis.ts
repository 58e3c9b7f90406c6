import type { Redis } from 'ioredis';
import { type CounterReservation, type LimitCounters, type ReserveRequest, type ReserveResult, WINDOW_SECONDS, reservationOf, secondOf } from './counters';
import { redisKeys } from './redis-contracts';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

const KINDS = ['', 'rpm', 'tpm', 'budget'] as const;

/**
 * Check-then-reserve for the whole chain in one round trip. Nothing is
 * written unless every limit passes, so concurrent routers cannot both take
 * the last slot.
 * KEYS: rpm windows…, tpm windows…, budget counters…
 * ARGV: nowSec, nowMs, window, nRpm, nTpm, nBud, tokens, micros,
 *       rpm limits…, tpm limits…, (budget limit, periodEnd)…
 * Returns {0, rpm limit, rpm remaining, rpm reset ms, tpm limit, tpm remaining, tpm reset ms}
 * (the tightest scope of each kind; -1 for a kind with no scopes), or {kindIndex, keyIndex, retryAfterMs}.
 */
const RESERVE_LUA = `
local now = tonumber(ARGV[1]); local nowMs = tonumber(ARGV[2]); local win = tonumber(ARGV[3])
local nr = tonumber(ARGV[4]); local nt = tonumber(ARGV[5]); local nb = tonumber(ARGV[6])
local tokens = tonumber(ARGV[7]); local micros = tonumber(ARGV[8])
local function scan(key)
  local all = redis.call('HGETALL', key)
  local sum = 0; local entries = {}; local stale = {}
  for i = 1, #all, 2 do
    local sec = tonumber(all[i]); local v = tonumber(all[i + 1])
    if sec <= now - win then stale[#stale + 1] = all[i] else sum = sum + v; entries[#entries + 1] = {sec, v} end
  end
  if #stale > 0 then redis.call('HDEL', key, unpack(stale)) end
  return sum, entries
end
local function oldest(entries)
  local o = nil
  for _, e in ipairs(entries) do if o == nil or e[1] < o then o = e[1] end end
  if o == nil then return win * 1000 end
  return (o + win) * 1000 - nowMs
end
local hr = {-1, -1, -1}; local ht = {-1, -1, -1}
local function tighter(h, lim, left, entries)
  if h[1] < 0 or left < h[2] then h[1] = lim; h[2] = left; h[3] = oldest(entries) end
end
local function retry(entries, need)
  table.sort(entries, function(a, b) return a[1] < b[1] end)
  local freed = 0
  for _, e in ipairs(entries) do
    freed = freed + e[2]
    if freed >= need then return (e[1] + win) * 1000 - nowMs end
  end
  return win * 1000
end
for i = 1, nr do
  local lim = tonumber(ARGV[8 + i])
  local sum, entries = scan(KEYS[i])
  if sum + 1 > lim then return {1, i, retry(entries, sum + 1 - lim)} end
  entries[#entries + 1] = {now, 1}
  tighter(hr, lim, lim - sum - 1, entries)
end
if tokens > 0 then
  for i = 1, nt do
    local lim = tonumber(ARGV[8 + nr + i])
    local sum, entries = scan(KEYS[nr + i])
    if sum + tokens > lim then
      if tokens > lim then return {2, i, win * 1000} end
      return {2, i, retry(entries, sum + tokens - lim)}
    end
    entries[#entries + 1] = {now, tokens}
    tighter(ht, lim, lim - sum - tokens, entries)
  end
end
if micros > 0 then
  for i = 1, nb do
    local lim = tonumber(ARGV[8 + nr + nt + 2 * i - 1])
    local pend = tonumber(ARGV[8 + nr + nt + 2 * i])
    local spent = tonumber(redis.call('GET', KEYS[nr + nt + i]) or '0')
    if spent + micros > lim then return {3, i, math.max(1000, pend - nowMs)} end
  end
end
for i = 1, nr do
  redis.call('HINCRBY', KEYS[i], now, 1)
  redis.call('EXPIRE', KEYS[i], win + 5)
end
if tokens > 0 then
  for i = 1, nt do
    redis.call('HINCRBY', KEYS[nr + i], now, tokens)
    redis.call('EXPIRE', KEYS[nr + i], win + 5)
  end
end
if micros > 0 then
  for i = 1, nb do
    local k = KEYS[nr + nt + i]
    redis.call('INCRBY', k, micros)
    redis.call('PEXPIREAT', k, tonumber(ARGV[8 + nr + nt + 2 * i]) + 86400000)
  end
end
return {0, hr[1], hr[2], hr[3], ht[1], ht[2], ht[3]}
`;

/**
 * Adjusts a reservation. KEYS: rpm windows…, tpm windows…, budget counters…
 * ARGV: second, nowSec, window, nRpm, nTpm, nBud, dReq, dTokens, dMicros, budget periodEnds…
 */
const ADJUST_LUA = `
local sec = tonumber(ARGV[1]); local now = tonumber(ARGV[2]); local win = tonumber(ARGV[3])
local nr = tonumber(ARGV[4]); local nt = tonumber(ARGV[5]); local nb = tonumber(ARGV[6])
local dReq = tonumber(ARGV[7]); local dTok = tonumber(ARGV[8]); local dMic = tonumber(ARGV[9])
if sec > now - win then
  if dReq ~= 0 then for i = 1, nr do redis.call('HINCRBY', KEYS[i], sec, dReq); redis.call('EXPIRE', KEYS[i], win + 5) end end
  if dTok ~= 0 then for i = 1, nt do redis.call('HINCRBY', KEYS[nr + i], sec, dTok); redis.call('EXPIRE', KEYS[nr + i], win + 5) end end
end
if dMic ~= 0 then
  for i = 1, nb do
    local k = KEYS[nr + nt + i]
    local v = redis.call('INCRBY', k, dMic)
    if v < 0 then redis.call('SET', k, 0) end
    redis.call('PEXPIREAT', k, tonumber(ARGV[9 + i]) + 86400000)
  end
end
return 0
`;

/**
 * Settle and usage record in one round trip: ADJUST_LUA, then XADD of the record.
 * KEYS: ADJUST_LUA's…, usage stream; ARGV: ADJUST_LUA's…, stream MAXLEN (~), record.
 * Returns the stream entry id.
 */
const SETTLE_APPEND_LUA = `${ADJUST_LUA.slice(0, ADJUST_LUA.lastIndexOf('return 0'))}return redis.call('XADD', KEYS[#KEYS], 'MAXLEN', '~', ARGV[#ARGV - 1], '*', 'r', ARGV[#ARGV])
`;

/** SET key max(current, value), with the period's expiry. KEYS: counter; ARGV: value, expireAtMs. */
const SEED_LUA = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local v = tonumber(ARGV[1])
if v > cur then redis.call('SET', KEYS[1], v) end
redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[2]))
return math.max(cur, v)
`;

type Cmds = {
  llmgwReserve(...args: (string | number)[]): Promise<number[]>;
  llmgwAdjust(...args: (string | number)[]): Promise<number>;
  llmgwSeed(...args: (string | number)[]): Promise<number>;
  llmgwSettleAppend(...args: (string | number)[]): Promise<string>;
};

/** LimitCounters on Redis: one Lua script per reserve and per settle. */
export class RedisLimitCounters implements LimitCounters {
  private readonly r: Redis & Cmds;

  /** `prefix` namespaces every key (e.g. `llmgw:`); the caller owns `redis`. */
  constructor(
    redis: Redis,
    private readonly prefix = DEFAULT_REDIS_KEY_PREFIX,
  ) {
    if (!(redis as any).llmgwReserve) {
      redis.defineCommand('llmgwReserve', { lua: RESERVE_LUA });
      redis.defineCommand('llmgwAdjust', { lua: ADJUST_LUA });
      redis.defineCommand('llmgwSeed', { numberOfKeys: 1, lua: SEED_LUA });
      redis.defineCommand('llmgwSettleAppend', { lua: SETTLE_APPEND_LUA });
    }
    this.r = redis as Redis & Cmds;
  }

  private rpmKey(scope: string) {
    return redisKeys.rpm(this.prefix, scope);
  }
  private tpmKey(scope: string) {
    return redisKeys.tpm(this.prefix, scope);
  }
  private budgetKey(scope: string, periodStart: number) {
    return redisKeys.budget(this.prefix, scope, periodStart);
  }

  async reserve(req: ReserveRequest): Promise<ReserveResult> {
    const now = secondOf(req.nowMs);
    const keys = [
      ...req.rpm.map((x) => this.rpmKey(x.scope)),
      ...req.tpm.map((x) => this.tpmKey(x.scope)),
      ...req.budgets.map((b) => this.budgetKey(b.scope, b.periodStart)),
    ];
    const argv = [
      now,
      req.nowMs,
      WINDOW_SECONDS,
      req.rpm.length,
      req.tpm.length,
      req.budgets.length,
      req.tokens,
      req.micros,
      ...req.rpm.map((x) => x.limit),
      ...req.tpm.map((x) => x.limit),
      ...req.budgets.flatMap((b) => [b.limitMicros, b.periodEnd]),
    ];
    const res = await this.r.llmgwReserve(keys.length, ...keys, ...argv);
    if (Number(res[0]) === 0) {
      const headroom = (at: number) =>
        res.length > at + 2 && Number(res[at]) >= 0
          ? { limit: Number(res[at]), remaining: Math.max(0, Number(res[at + 1])), resetMs: Math.max(0, Number(res[at + 2])) }
          : undefined;
      return {
        ok: true,
        requests: headroom(1),
        tokens: headroom(4),
        reservation: reservationOf(req, now),
      };
    }
    const kind = KINDS[Number(res[0])] as 'rpm' | 'tpm' | 'budget';
    const i = Number(res[1]) - 1;
    const hit = kind === 'rpm' ? req.rpm[i] : kind === 'tpm' ? req.tpm[i] : { scope: req.budgets[i].scope, limit: req.budgets[i].limitMicros };
    return { ok: false, kind, scope: hit.scope, limit: hit.limit, retryAfterMs: Number(res[2]) };
  }

  private adjustKeys(r: CounterReservation): string[] {
    return [
      ...r.rpmScopes.map((s) => this.rpmKey(s)),
      ...r.tpmScopes.map((s) => this.tpmKey(s)),
      ...r.budgets.map((b) => this.budgetKey(b.scope, b.periodStart)),
    ];
  }

  private adjustArgs(r: CounterReservation, dReq: number, dTokens: number, dMicros: number, nowMs: number): number[] {
    return [
      r.second,
      secondOf(nowMs),
      WINDOW_SECONDS,
      r.rpmScopes.length,
      r.tpmScopes.length,
      r.budgets.length,
      dReq,
      dTokens,
      dMicros,
      ...r.budgets.map((b) => b.periodEnd),
    ];
  }

  private async adjust(r: CounterReservation, dReq: number, dTokens: number, dMicros: number, nowMs: number): Promise<void> {
    if (!dReq && !dTokens && !dMicros) return;
    const keys = this.adjustKeys(r);
    await this.r.llmgwAdjust(keys.length, ...keys, ...this.adjustArgs(r, dReq, dTokens, dMicros, nowMs));
  }

  async settle(r: CounterReservation, actual: { tokens: number; micros: number }, nowMs: number): Promise<void> {
    await this.adjust(r, 0, actual.tokens - r.tokens, actual.micros - r.micros, nowMs);
  }

  /**
   * `settle`, then XADD `record` (field `r`) to `stream` with MAXLEN ~ `maxLen`, in one
   * script: one round trip, and either both happen or neither. Returns the entry id.
   */
  async settleAndAppend(
    r: CounterReservation,
    actual: { tokens: number; micros: number },
    nowMs: number,
    stream: string,
    maxLen: number,
    record: string,
  ): Promise<string> {
    const keys = this.adjustKeys(r);
    return this.r.llmgwSettleAppend(
      keys.length + 1,
      ...keys,
      stream,
      ...this.adjustArgs(r, 0, actual.tokens - r.tokens, actual.micros - r.micros, nowMs),
      maxLen,
      record,
    );
  }

  async release(r: CounterReservation, nowMs: number): Promise<void> {
    await this.adjust(r, -1, -r.tokens, -r.micros, nowMs);
  }

  async seedBudget(b: { scope: string; periodStart: number; periodEnd: number }, spentMicros: number): Promise<void> {
    await this.r.llmgwSeed(this.budgetKey(b.scope, b.periodStart), spentMicros, b.periodEnd + 86_400_000);
  }

  async budgetSpent(scope: string, periodStart: number): Promise<number> {
    return Number((await this.r.get(this.budgetKey(scope, periodStart))) ?? 0);
  }

  async windowUsage(scope: string, nowMs: number): Promise<{ requests: number; tokens: number }> {
    const now = secondOf(nowMs);
    const sum = (h: Record<string, string>) => Object.entries(h).reduce((a, [sec, v]) => (Number(sec) > now - WINDOW_SECONDS ? a + Number(v) : a), 0);
    const [rh, th] = await Promise.all([this.r.hgetall(this.rpmKey(scope)), this.r.hgetall(this.tpmKey(scope))]);
    return { requests: sum(rh), tokens: sum(th) };
  }
}

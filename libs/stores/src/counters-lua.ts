import { HOLD_TOMBSTONE_MS } from './counters';

/**
 * The limit counters' Redis scripts (docs/accounting.md#counters). Each script
 * takes a batch: requests that arrived together share one call
 * (docs/accounting.md#batched-reserves-and-settles), and each item in it is
 * checked and written on its own, in arrival order, exactly as if it had been
 * a call of its own.
 *
 * ARGV of a batch: n, then per item: its key count, its number of trailing arguments, its
 * leading arguments joined by commas in one string (numbers and ids: none holds a comma), then
 * its trailing arguments as they are (a usage record). An item's A is its leading arguments
 * followed by its trailing ones. One packed string instead of a dozen arguments per item keeps
 * the client's work per call small (docs/accounting.md#batched-reserves-and-settles).
 * KEYS: every item's keys, in item order.
 */
const BATCH = (fn: string) => `
local function split(s, A)
  local i = 1; local n = 0
  while true do
    local j = string.find(s, ',', i, true)
    n = n + 1
    if not j then A[n] = string.sub(s, i); return n end
    A[n] = string.sub(s, i, j - 1); i = j + 1
  end
end
local out = {}
local ki = 1; local ai = 2
for n = 1, tonumber(ARGV[1]) do
  local nk = tonumber(ARGV[ai]); local nx = tonumber(ARGV[ai + 1])
  local K = {}; for j = 1, nk do K[j] = KEYS[ki + j - 1] end; ki = ki + nk
  local A = {}; local na = split(ARGV[ai + 2], A); ai = ai + 3
  for j = 1, nx do A[na + j] = ARGV[ai + j - 1] end; ai = ai + nx
  out[n] = ${fn}(K, A)
end
return out
`;

/**
 * Check-then-reserve for a whole chain. Nothing is written unless every limit
 * passes, so concurrent routers cannot both take the last slot.
 * K: rpm windows…, tpm windows…, (budget counter, its holds)…
 * A: nowSec, nowMs, window, nRpm, nTpm, nBud, tokens, micros, requests, bucket, holdId ('' = none), holdUntilMs,
 *    rpm limits…, tpm limits…, (budget limit, periodEnd)…
 * A budget's holds (counter leases, docs/accounting.md#counter-leases) are a hash of id → "micros:untilMs";
 * the budget check counts spent + live holds and deletes expired ones.
 * Returns {0, rpm limit, rpm remaining, rpm reset ms, tpm limit, tpm remaining, tpm reset ms,
 * budget limit, budget remaining} (the tightest scope of each kind; -1 for a kind with no
 * scopes), or {kindIndex, keyIndex, retryAfterMs}.
 */
const RESERVE_FN = `
local function live_holds(key, nowMs)
  local all = redis.call('HGETALL', key)
  local sum = 0; local stale = {}
  for i = 1, #all, 2 do
    local m, u = string.match(all[i + 1], '^(%-?%d+):(%d+)$')
    if tonumber(u) <= nowMs then stale[#stale + 1] = all[i] else sum = sum + tonumber(m) end
  end
  if #stale > 0 then redis.call('HDEL', key, unpack(stale)) end
  return sum
end
local function reserve_one(K, A)
  local now = tonumber(A[1]); local nowMs = tonumber(A[2]); local win = tonumber(A[3])
  local nr = tonumber(A[4]); local nt = tonumber(A[5]); local nb = tonumber(A[6])
  local tokens = tonumber(A[7]); local micros = tonumber(A[8])
  local nreq = tonumber(A[9]); local bucket = tonumber(A[10])
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
  local hr = {-1, -1, -1}; local ht = {-1, -1, -1}; local hb = {-1, -1}
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
    local lim = tonumber(A[12 + i])
    local sum, entries = scan(K[i])
    if sum + nreq > lim then return {1, i, retry(entries, sum + nreq - lim)} end
    entries[#entries + 1] = {now, nreq}
    tighter(hr, lim, lim - sum - nreq, entries)
  end
  if tokens > 0 then
    for i = 1, nt do
      local lim = tonumber(A[12 + nr + i])
      local sum, entries = scan(K[nr + i])
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
      local lim = tonumber(A[12 + nr + nt + 2 * i - 1])
      local pend = tonumber(A[12 + nr + nt + 2 * i])
      local spent = tonumber(redis.call('GET', K[nr + nt + 2 * i - 1]) or '0') + live_holds(K[nr + nt + 2 * i], nowMs)
      if spent + micros > lim then return {3, i, math.max(1000, pend - nowMs)} end
      if hb[1] < 0 or lim - spent - micros < hb[2] then hb[1] = lim; hb[2] = lim - spent - micros end
    end
  end
  for i = 1, nr do
    redis.call('HINCRBY', K[i], bucket, nreq)
    redis.call('EXPIRE', K[i], 2 * win + 5)
  end
  if tokens > 0 then
    for i = 1, nt do
      redis.call('HINCRBY', K[nr + i], bucket, tokens)
      redis.call('EXPIRE', K[nr + i], 2 * win + 5)
    end
  end
  if micros > 0 then
    for i = 1, nb do
      local k = K[nr + nt + 2 * i - 1]
      local expireAt = tonumber(A[12 + nr + nt + 2 * i]) + 86400000
      if A[11] ~= '' then k = K[nr + nt + 2 * i]; redis.call('HSET', k, A[11], A[8] .. ':' .. A[12])
      else redis.call('INCRBY', k, micros) end
      redis.call('PEXPIREAT', k, expireAt)
    end
  end
  return {0, hr[1], hr[2], hr[3], ht[1], ht[2], ht[3], hb[1], hb[2]}
end
`;

/**
 * Adjusts a reservation; with a stream key last in K, then appends a usage record to it
 * (settle and record in one step: either both happen or neither).
 * K: rpm windows…, tpm windows…, (budget counter, its holds, its closed holds)…, [usage stream]
 * A: hasStream, second, nowSec, window, nRpm, nTpm, nBud, dReq, dTokens, dMicros, holdOp, holdId, estimate, nowMs,
 *    budget periodEnds…, [stream MAXLEN (~), record]
 * holdOp 0: dMicros is added to the spent counter. 1 (settle or release in a hold): dMicros is the
 * actual spend; the estimate leaves a live hold (a closed one already moved it to the spent counter,
 * an expired one dropped it). 2 (close a hold): its unused -dMicros goes, the rest is spent, and the
 * closed hold is remembered (a zset scored by expiry) for the settles still to come.
 * Returns the stream entry id, or 0.
 */
const ADJUST_FN = `
local function adjust_one(K, A)
  local sec = tonumber(A[2]); local now = tonumber(A[3]); local win = tonumber(A[4])
  local nr = tonumber(A[5]); local nt = tonumber(A[6]); local nb = tonumber(A[7])
  local dReq = tonumber(A[8]); local dTok = tonumber(A[9]); local dMic = tonumber(A[10])
  local op = A[11]; local id = A[12]; local est = tonumber(A[13]); local nowMs = tonumber(A[14])
  if sec > now - win then
    local ttl = 2 * win + 5
    if dReq ~= 0 then for i = 1, nr do redis.call('HINCRBY', K[i], sec, dReq); redis.call('EXPIRE', K[i], ttl) end end
    if dTok ~= 0 then for i = 1, nt do redis.call('HINCRBY', K[nr + i], sec, dTok); redis.call('EXPIRE', K[nr + i], ttl) end end
  end
  for i = 1, nb do
    local k = K[nr + nt + 3 * i - 2]; local hk = K[nr + nt + 3 * i - 1]; local ck = K[nr + nt + 3 * i]
    local expireAt = tonumber(A[14 + i]) + 86400000
    local d = dMic
    if op ~= '0' then
      local v = redis.call('HGET', hk, id); local m, u = nil, nil
      if v then m, u = string.match(v, '^(%-?%d+):(%d+)$') end
      local live = v and tonumber(u) > nowMs
      if op == '1' then
        if live then redis.call('HSET', hk, id, string.format('%d', math.max(0, tonumber(m) - est)) .. ':' .. u)
        elseif redis.call('ZSCORE', ck, id) then d = dMic - est end
      else
        d = 0
        if live then
          d = math.max(0, tonumber(m) + dMic)
          redis.call('HDEL', hk, id)
          redis.call('ZREMRANGEBYSCORE', ck, '-inf', nowMs)
          redis.call('ZADD', ck, nowMs + ${HOLD_TOMBSTONE_MS}, id)
          redis.call('PEXPIREAT', ck, expireAt)
        end
      end
    end
    if d ~= 0 then
      local v = redis.call('INCRBY', k, d)
      if v < 0 then redis.call('SET', k, 0) end
      redis.call('PEXPIREAT', k, expireAt)
    end
  end
  if A[1] == '1' then return redis.call('XADD', K[#K], 'MAXLEN', '~', A[#A - 1], '*', 'r', A[#A]) end
  return 0
end
`;

export const RESERVE_BATCH_LUA = RESERVE_FN + BATCH('reserve_one');
export const ADJUST_BATCH_LUA = ADJUST_FN + BATCH('adjust_one');

/** SET key max(current, value), with the period's expiry. KEYS: counter; ARGV: value, expireAtMs. */
export const SEED_LUA = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local v = tonumber(ARGV[1])
if v > cur then redis.call('SET', KEYS[1], v) end
redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[2]))
return math.max(cur, v)
`;

/** One item of a batch: its keys, its leading arguments (numbers and ids, packed), its trailing ones (sent as they are). */
export interface BatchItem {
  keys: string[];
  args: Array<string | number>;
  tail?: string[];
}

/** One batch's KEYS and ARGV from its items (the layout BATCH reads). */
export function batchArgs(items: ReadonlyArray<BatchItem>): Array<string | number> {
  const keys: string[] = [];
  const argv: Array<string | number> = [items.length];
  for (const it of items) {
    for (const k of it.keys) keys.push(k);
    for (const a of it.args) if (typeof a === 'string' && a.includes(',')) throw new Error(`batch argument holds a comma: ${a}`);
    const packed = it.args.join(',');
    argv.push(it.keys.length, it.tail?.length ?? 0, packed);
    if (it.tail) for (const t of it.tail) argv.push(t);
  }
  return [keys.length, ...keys, ...argv];
}

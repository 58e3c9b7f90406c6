import type { Redis } from 'ioredis';
import { Batcher } from './batcher';
import {
  type CounterReservation,
  type LimitCounters,
  type ReserveRequest,
  type ReserveResult,
  WINDOW_SECONDS,
  countedOf,
  reservationOf,
  secondOf,
} from './counters';
import { ADJUST_BATCH_LUA, type BatchItem, RESERVE_BATCH_LUA, SEED_LUA, batchArgs } from './counters-lua';
import { redisKeys } from './redis-contracts';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

const KINDS = ['', 'rpm', 'tpm', 'budget'] as const;

type Cmds = {
  llmgwReserveBatch(...args: (string | number)[]): Promise<number[][]>;
  llmgwAdjustBatch(...args: (string | number)[]): Promise<Array<string | number>>;
  llmgwSeed(...args: (string | number)[]): Promise<number>;
};

/**
 * LimitCounters on Redis: one Lua script per reserve and per settle, and the
 * reserves (and the settles) that arrive together share one call.
 */
export class RedisLimitCounters implements LimitCounters {
  private readonly r: Redis & Cmds;
  private readonly reserves: Batcher<BatchItem, number[]>;
  private readonly adjusts: Batcher<BatchItem, string | number>;

  /** `prefix` namespaces every key (e.g. `llmgw:`); the caller owns `redis`. */
  constructor(
    redis: Redis,
    private readonly prefix = DEFAULT_REDIS_KEY_PREFIX,
    /** Most calls one script call carries (1 = no batching: the reference in tools/bench/tenancy-counters.ts). */
    batchMax = 128,
  ) {
    if (!(redis as any).llmgwReserveBatch) {
      redis.defineCommand('llmgwReserveBatch', { lua: RESERVE_BATCH_LUA });
      redis.defineCommand('llmgwAdjustBatch', { lua: ADJUST_BATCH_LUA });
      redis.defineCommand('llmgwSeed', { numberOfKeys: 1, lua: SEED_LUA });
    }
    this.r = redis as Redis & Cmds;
    this.reserves = new Batcher((items) => this.r.llmgwReserveBatch(...batchArgs(items)), batchMax);
    this.adjusts = new Batcher((items) => this.r.llmgwAdjustBatch(...batchArgs(items)), batchMax);
  }

  /** Script calls so far (each one round trip, however many requests shared it). */
  get scriptCalls(): number {
    return this.reserves.flushes + this.adjusts.flushes;
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
    const { requests, second } = countedOf(req);
    const keys = [
      ...req.rpm.map((x) => this.rpmKey(x.scope)),
      ...req.tpm.map((x) => this.tpmKey(x.scope)),
      ...req.budgets.flatMap((b) => [this.budgetKey(b.scope, b.periodStart), redisKeys.budgetHolds(this.prefix, b.scope, b.periodStart)]),
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
      requests,
      second,
      req.hold?.id ?? '',
      req.hold?.untilMs ?? 0,
      ...req.rpm.map((x) => x.limit),
      ...req.tpm.map((x) => x.limit),
      ...req.budgets.flatMap((b) => [b.limitMicros, b.periodEnd]),
    ];
    const res = await this.reserves.call({ keys, args: argv });
    if (Number(res[0]) === 0) {
      const headroom = (at: number) =>
        res.length > at + 2 && Number(res[at]) >= 0
          ? { limit: Number(res[at]), remaining: Math.max(0, Number(res[at + 1])), resetMs: Math.max(0, Number(res[at + 2])) }
          : undefined;
      return {
        ok: true,
        requests: headroom(1),
        tokens: headroom(4),
        budget: res.length > 8 && Number(res[7]) >= 0 ? { limit: Number(res[7]), remaining: Number(res[8]) } : undefined,
        reservation: reservationOf(req, second),
      };
    }
    const kind = KINDS[Number(res[0])] as 'rpm' | 'tpm' | 'budget';
    const i = Number(res[1]) - 1;
    const hit = kind === 'rpm' ? req.rpm[i] : kind === 'tpm' ? req.tpm[i] : { scope: req.budgets[i].scope, limit: req.budgets[i].limitMicros };
    return { ok: false, kind, scope: hit.scope, limit: hit.limit, retryAfterMs: Number(res[2]) };
  }

  /** A settle's keys, built in one array (every request settles: no intermediate arrays). */
  private adjustKeys(r: CounterReservation): string[] {
    const keys: string[] = [];
    for (const s of r.rpmScopes) keys.push(this.rpmKey(s));
    for (const s of r.tpmScopes) keys.push(this.tpmKey(s));
    for (const b of r.budgets)
      keys.push(
        this.budgetKey(b.scope, b.periodStart),
        redisKeys.budgetHolds(this.prefix, b.scope, b.periodStart),
        redisKeys.budgetClosed(this.prefix, b.scope, b.periodStart),
      );
    return keys;
  }

  /** holdOp: see ADJUST_FN (0: dMicros to the spent counter; 1: dMicros spent out of r's hold; 2: close r's hold). */
  private adjustArgs(
    r: CounterReservation,
    dReq: number,
    dTokens: number,
    dMicros: number,
    nowMs: number,
    stream: 0 | 1,
    holdOp: 0 | 1 | 2,
  ): Array<string | number> {
    return [
      stream,
      r.second,
      secondOf(nowMs),
      WINDOW_SECONDS,
      r.rpmScopes.length,
      r.tpmScopes.length,
      r.budgets.length,
      dReq,
      dTokens,
      dMicros,
      r.hold ? holdOp : 0,
      r.hold ?? '',
      r.micros,
      nowMs,
      ...r.budgets.map((b) => b.periodEnd),
    ];
  }

  private async change(r: CounterReservation, dReq: number, dTokens: number, dMicros: number, nowMs: number, holdOp: 0 | 1 | 2 = 0): Promise<void> {
    if (!dReq && !dTokens && !dMicros && !(r.hold && holdOp)) return;
    await this.adjusts.call({ keys: this.adjustKeys(r), args: this.adjustArgs(r, dReq, dTokens, dMicros, nowMs, 0, holdOp) });
  }

  /** The micro-unit delta of settling r to `actual`: the whole spend out of a hold, else the difference from the estimate. */
  private spendOf(r: CounterReservation, actual: number): number {
    return r.hold ? actual : actual - r.micros;
  }

  async settle(r: CounterReservation, actual: { tokens: number; micros: number }, nowMs: number): Promise<void> {
    await this.change(r, 0, actual.tokens - r.tokens, this.spendOf(r, actual.micros), nowMs, 1);
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
    keys.push(stream);
    const args = this.adjustArgs(r, 0, actual.tokens - r.tokens, this.spendOf(r, actual.micros), nowMs, 1, 1);
    args.push(maxLen);
    const id = await this.adjusts.call({ keys, args, tail: [record] });
    return String(id);
  }

  async release(r: CounterReservation, nowMs: number): Promise<void> {
    await this.change(r, -r.requests, -r.tokens, this.spendOf(r, 0), nowMs, 1);
  }

  async adjust(r: CounterReservation, d: { requests: number; tokens: number; micros: number }, nowMs: number): Promise<void> {
    await this.change(r, d.requests, d.tokens, d.micros, nowMs, 2);
  }

  async seedBudget(b: { scope: string; periodStart: number; periodEnd: number }, spentMicros: number): Promise<void> {
    await this.r.llmgwSeed(this.budgetKey(b.scope, b.periodStart), spentMicros, b.periodEnd + 86_400_000);
  }

  async budgetSpent(scope: string, periodStart: number, nowMs = Date.now()): Promise<number> {
    const [spent, holds] = await Promise.all([
      this.r.get(this.budgetKey(scope, periodStart)),
      this.r.hvals(redisKeys.budgetHolds(this.prefix, scope, periodStart)),
    ]);
    const held = holds.map((v) => v.split(':').map(Number)).reduce((a, [m, until]) => (until > nowMs ? a + m : a), 0);
    return Number(spent ?? 0) + held;
  }

  async windowUsage(scope: string, nowMs: number): Promise<{ requests: number; tokens: number }> {
    const now = secondOf(nowMs);
    const sum = (h: Record<string, string>) => Object.entries(h).reduce((a, [sec, v]) => (Number(sec) > now - WINDOW_SECONDS ? a + Number(v) : a), 0);
    const [rh, th] = await Promise.all([this.r.hgetall(this.rpmKey(scope)), this.r.hgetall(this.tpmKey(scope))]);
    return { requests: sum(rh), tokens: sum(th) };
  }
}

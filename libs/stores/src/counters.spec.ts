import fc from 'fast-check';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { openTestRedis } from './testing';
import type { CounterReservation, LimitCounters, ReserveRequest } from './counters';
import { MemoryLimitCounters } from './counters-memory';
import { batchArgs } from './counters-lua';
import { RedisLimitCounters } from './counters-redis';
import type { LedgerRecord } from './ledger';
import { redisAccountingStores } from './ledger-stores';

const testRedis = openTestRedis();
const { redis, prefix } = testRedis;

afterAll(() => testRedis.close());

// Today's UTC day, not a fixed date: Redis expires a budget counter a day after its period ends
// (PEXPIREAT on the real clock), so a period in the past would have no counter at all.
const TODAY = Math.floor(Date.now() / 86_400_000) * 86_400_000;
const T0 = TODAY + 12 * 3_600_000;
const DAY = { periodStart: TODAY, periodEnd: TODAY + 86_400_000 };

const impls: Array<[string, () => LimitCounters]> = [
  ['memory', () => new MemoryLimitCounters()],
  ['redis', () => new RedisLimitCounters(redis, `${prefix}${randomUUID()}:`)],
];

describe.each(impls)('LimitCounters contract (%s)', (_name, make) => {
  let c: LimitCounters;
  beforeEach(() => {
    c = make();
  });

  const req = (over: Partial<ReserveRequest> = {}): ReserveRequest => ({ nowMs: T0, rpm: [], tpm: [], tokens: 0, budgets: [], micros: 0, ...over });

  it.each([
    ['key', [{ scope: 'key:k', limit: 3 }], 3],
    [
      'tightest level wins',
      [
        { scope: 'key:k', limit: 10 },
        { scope: 'org:o', limit: 2 },
      ],
      2,
    ],
    ['zero allows nothing', [{ scope: 'key:k', limit: 0 }], 0],
  ])('RPM: %s', async (_n, rpm, allowed) => {
    let ok = 0;
    for (let i = 0; i < 6; i++) if ((await c.reserve(req({ rpm, nowMs: T0 + i * 10 }))).ok) ok++;
    expect(ok).toBe(allowed);
  });

  it('RPM: a rejection reserves nothing on the other levels', async () => {
    await c.reserve(req({ rpm: [{ scope: 'org:o', limit: 1 }] }));
    const r = await c.reserve(
      req({
        rpm: [
          { scope: 'key:k', limit: 5 },
          { scope: 'org:o', limit: 1 },
        ],
      }),
    );
    expect(r).toMatchObject({ ok: false, kind: 'rpm', scope: 'org:o', limit: 1 });
    expect((await c.windowUsage('key:k', T0)).requests).toBe(0);
  });

  it('RPM: the window slides; Retry-After points at when the oldest request leaves it', async () => {
    const rpm = [{ scope: 'key:k', limit: 2 }];
    expect((await c.reserve(req({ rpm, nowMs: T0 }))).ok).toBe(true);
    expect((await c.reserve(req({ rpm, nowMs: T0 + 30_000 }))).ok).toBe(true);
    const no = await c.reserve(req({ rpm, nowMs: T0 + 40_000 }));
    expect(no).toMatchObject({ ok: false, kind: 'rpm' });
    if (!no.ok) expect(no.retryAfterMs).toBe(20_000);
    expect((await c.reserve(req({ rpm, nowMs: T0 + 60_000 }))).ok).toBe(true);
    expect((await c.reserve(req({ rpm, nowMs: T0 + 60_500 }))).ok).toBe(false);
  });

  it('reports the headroom of the tightest scope of each kind (OpenAI x-ratelimit-*)', async () => {
    const rpm = [
      { scope: 'key:h', limit: 10 },
      { scope: 'org:h', limit: 3 },
    ];
    const tpm = [{ scope: 'key:h', limit: 1000 }];
    const first = await c.reserve(req({ rpm, tpm, tokens: 100, nowMs: T0 }));
    expect(first).toMatchObject({ ok: true, requests: { limit: 3, remaining: 2, resetMs: 60_000 }, tokens: { limit: 1000, remaining: 900, resetMs: 60_000 } });
    const second = await c.reserve(req({ rpm, tpm, tokens: 50, nowMs: T0 + 20_000 }));
    // The window is full again when the first request (at T0) leaves it: 40 s from now.
    expect(second).toMatchObject({ ok: true, requests: { limit: 3, remaining: 1, resetMs: 40_000 }, tokens: { limit: 1000, remaining: 850, resetMs: 40_000 } });
    const none = await c.reserve(req({ nowMs: T0 }));
    expect(none.ok && none.requests === undefined && none.tokens === undefined).toBe(true);
  });

  it('TPM: reserves the estimate and settles to the real figure', async () => {
    const tpm = [{ scope: 'project:p', limit: 1000 }];
    const a = await c.reserve(req({ tpm, tokens: 600 }));
    expect(a.ok).toBe(true);
    expect((await c.reserve(req({ tpm, tokens: 600 }))).ok).toBe(false);
    if (a.ok) await c.settle(a.reservation, { tokens: 100, micros: 0 }, T0 + 1000);
    expect((await c.windowUsage('project:p', T0 + 1000)).tokens).toBe(100);
    expect((await c.reserve(req({ tpm, tokens: 600, nowMs: T0 + 1000 }))).ok).toBe(true);
  });

  it('TPM: a request larger than the limit can never fit', async () => {
    const r = await c.reserve(req({ tpm: [{ scope: 'key:k', limit: 10 }], tokens: 11 }));
    expect(r).toMatchObject({ ok: false, kind: 'tpm', retryAfterMs: 60_000 });
  });

  it('budget: reserve, settle, refuse once spent, Retry-After = end of period', async () => {
    const budgets = [{ scope: 'team:t', limitMicros: 1000, ...DAY }];
    const a = await c.reserve(req({ budgets, micros: 800 }));
    expect(a.ok).toBe(true);
    expect((await c.reserve(req({ budgets, micros: 300 }))).ok).toBe(false);
    if (a.ok) await c.settle(a.reservation, { tokens: 0, micros: 500 }, T0);
    expect(await c.budgetSpent('team:t', DAY.periodStart)).toBe(500);
    const b = await c.reserve(req({ budgets, micros: 500 }));
    expect(b.ok).toBe(true);
    const no = await c.reserve(req({ budgets, micros: 1 }));
    expect(no).toMatchObject({ ok: false, kind: 'budget', scope: 'team:t', limit: 1000 });
    if (!no.ok) expect(no.retryAfterMs).toBe(DAY.periodEnd - T0);
  });

  it('budget: a free request (0 micros) passes a spent budget', async () => {
    const budgets = [{ scope: 'key:k', limitMicros: 10, ...DAY }];
    await c.seedBudget(budgets[0], 10);
    expect((await c.reserve(req({ budgets, micros: 1 }))).ok).toBe(false);
    expect((await c.reserve(req({ budgets, micros: 0 }))).ok).toBe(true);
  });

  it('budget: the next period starts empty', async () => {
    const budgets = [{ scope: 'key:k', limitMicros: 10, ...DAY }];
    await c.seedBudget(budgets[0], 10);
    const next = { scope: 'key:k', limitMicros: 10, periodStart: DAY.periodEnd, periodEnd: DAY.periodEnd + 86_400_000 };
    expect((await c.reserve(req({ budgets: [next], micros: 5, nowMs: DAY.periodEnd + 1 }))).ok).toBe(true);
  });

  it('seedBudget only ever raises the counter (idempotent reseed)', async () => {
    const b = { scope: 'org:o', ...DAY };
    await c.seedBudget(b, 500);
    await c.seedBudget(b, 500);
    expect(await c.budgetSpent('org:o', DAY.periodStart)).toBe(500);
    await c.seedBudget(b, 200);
    expect(await c.budgetSpent('org:o', DAY.periodStart)).toBe(500);
    await c.seedBudget(b, 700);
    expect(await c.budgetSpent('org:o', DAY.periodStart)).toBe(700);
  });

  it('release undoes the request, its tokens and its micro-units', async () => {
    const r = await c.reserve(
      req({
        rpm: [{ scope: 'key:k', limit: 1 }],
        tpm: [{ scope: 'key:k', limit: 100 }],
        tokens: 50,
        budgets: [{ scope: 'key:k', limitMicros: 100, ...DAY }],
        micros: 60,
      }),
    );
    expect(r.ok).toBe(true);
    if (r.ok) await c.release(r.reservation, T0);
    expect(await c.windowUsage('key:k', T0)).toEqual({ requests: 0, tokens: 0 });
    expect(await c.budgetSpent('key:k', DAY.periodStart)).toBe(0);
  });

  it('concurrent reservations never overspend a budget', async () => {
    const budgets = [{ scope: 'key:k', limitMicros: 1000, ...DAY }];
    const results = await Promise.all(Array.from({ length: 50 }, () => c.reserve(req({ budgets, micros: 70 }))));
    expect(results.filter((r) => r.ok)).toHaveLength(14);
    expect(await c.budgetSpent('key:k', DAY.periodStart)).toBe(980);
  });
});

it('two Redis clients (two routers) share one limit', async () => {
  const p = `${prefix}shared:`;
  const other = new Redis({ host: '127.0.0.1', port: 6379 });
  try {
    const a = new RedisLimitCounters(redis, p);
    const b = new RedisLimitCounters(other, p);
    const rq: ReserveRequest = { nowMs: T0, rpm: [{ scope: 'key:k', limit: 10 }], tpm: [], tokens: 0, budgets: [], micros: 0 };
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).reserve(rq)));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
  } finally {
    other.disconnect();
  }
});

it('settleAndAppend (Redis stores): settles like settle and appends the usage record in the same call', async () => {
  const p = `${prefix}settle-append:`;
  const stores = redisAccountingStores(redis, p);
  const tpm = [{ scope: 'project:p', limit: 1000 }];
  const budgets = [{ scope: 'team:t', limitMicros: 1000, ...DAY }];
  const a = await stores.counters.reserve({ nowMs: T0, rpm: [{ scope: 'key:k', limit: 10 }], tpm, tokens: 600, budgets, micros: 800 });
  if (!a.ok) throw new Error('reserve refused');
  const rec: LedgerRecord = {
    recordId: 'r1',
    requestId: 'q1',
    ts: T0,
    keyId: 'k',
    projectId: 'p',
    model: 'm',
    servedModel: 'm',
    status: 200,
    promptTokens: 60,
    completionTokens: 40,
    cachedTokens: 0,
    durationMs: 5,
    costMicros: 500,
  };
  const id = await stores.settleAndAppend!(a.reservation, { tokens: 100, micros: 500 }, T0 + 1000, rec);
  expect(await stores.counters.windowUsage('project:p', T0 + 1000)).toEqual({ requests: 0, tokens: 100 });
  expect(await stores.counters.windowUsage('key:k', T0 + 1000)).toEqual({ requests: 1, tokens: 0 });
  expect(await stores.counters.budgetSpent('team:t', DAY.periodStart)).toBe(500);
  await stores.ledger.ensureGroup();
  try {
    expect(await stores.ledger.read('c', 10, 0)).toEqual([{ id, record: rec }]);
  } finally {
    await stores.ledger.close();
  }
});

it('redis: reserves and settles arriving together share one script call, each all-or-nothing in arrival order', async () => {
  const c = new RedisLimitCounters(redis, `${prefix}${randomUUID()}:`);
  const rpm = [{ scope: 'key:b', limit: 3 }];
  const calls = c.scriptCalls;
  const rs = await Promise.all(Array.from({ length: 10 }, (_v, i) => c.reserve({ nowMs: T0 + i, rpm, tpm: [], tokens: 0, budgets: [], micros: 0 })));
  expect(rs.map((r) => r.ok)).toEqual([true, true, true, false, false, false, false, false, false, false]);
  expect(c.scriptCalls - calls).toBe(1);
  const held = rs.flatMap((r) => (r.ok ? [r.reservation] : []));
  await Promise.all(held.map((r) => c.release(r, T0 + 100)));
  expect(c.scriptCalls - calls).toBe(2);
  expect(await c.windowUsage('key:b', T0 + 100)).toEqual({ requests: 0, tokens: 0 });
});

it.each(impls)('%s: a reserve of several requests counted in a later second, and adjust gives part of it back', async (_n, make) => {
  const c = make();
  const rpm = [{ scope: 'key:l', limit: 10 }];
  const lease = await c.reserve({ nowMs: T0, rpm, tpm: [], tokens: 0, budgets: [], micros: 0, requests: 8, second: Math.floor(T0 / 1000) + 5 });
  expect(lease.ok && lease.reservation).toMatchObject({ requests: 8, second: Math.floor(T0 / 1000) + 5 });
  expect((await c.reserve({ nowMs: T0, rpm, tpm: [], tokens: 0, budgets: [], micros: 0, requests: 3 })).ok).toBe(false);
  if (lease.ok) await c.adjust(lease.reservation, { requests: -5, tokens: 0, micros: 0 }, T0);
  expect(await c.windowUsage('key:l', T0)).toEqual({ requests: 3, tokens: 0 });
  // Counted in its own (later) second: still in the window 62 s on, gone 66 s on.
  expect((await c.windowUsage('key:l', T0 + 62_000)).requests).toBe(3);
  expect((await c.windowUsage('key:l', T0 + 66_000)).requests).toBe(0);
});

describe.each(impls)('budget property (%s)', (name, make) => {
  type Op = { kind: 'reserve'; micros: number } | { kind: 'settle'; which: number; fraction: number } | { kind: 'release'; which: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('reserve' as const), micros: fc.integer({ min: 0, max: 400 }) }),
    fc.record({ kind: fc.constant('settle' as const), which: fc.nat(50), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }),
    fc.record({ kind: fc.constant('release' as const), which: fc.nat(50) }),
  );

  it('spent + reserved never exceeds the budget, and the counter equals what was charged', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), fc.integer({ min: 0, max: 2000 }), async (ops, limit) => {
        const c = make();
        const b = { scope: `key:${randomUUID()}`, limitMicros: limit, ...DAY };
        const open: Array<{ r: CounterReservation; micros: number }> = [];
        let charged = 0;
        for (const o of ops) {
          if (o.kind === 'reserve') {
            const r = await c.reserve({ nowMs: T0, rpm: [], tpm: [], tokens: 0, budgets: [b], micros: o.micros });
            if (r.ok) {
              open.push({ r: r.reservation, micros: o.micros });
              charged += o.micros;
            } else {
              expect(charged + o.micros).toBeGreaterThan(limit);
            }
          } else if (open.length) {
            const [x] = open.splice(o.which % open.length, 1);
            const actual = o.kind === 'settle' ? Math.floor(x.micros * o.fraction) : 0;
            if (o.kind === 'settle') await c.settle(x.r, { tokens: 0, micros: actual }, T0);
            else await c.release(x.r, T0);
            charged += actual - x.micros;
          }
          expect(charged).toBeLessThanOrEqual(limit);
          expect(await c.budgetSpent(b.scope, DAY.periodStart)).toBe(charged);
        }
      }),
      { numRuns: name === 'memory' ? 300 : 40 },
    );
  });
});

it('a batch packs each item into one argument string, its record after it, and refuses an argument holding a comma', () => {
  const args = batchArgs([
    { keys: ['a', 'b'], args: [1, -12, '', 'hold-1'] },
    { keys: ['c'], args: [0, 7], tail: ['{"x":1,"y":2}'] },
  ]);
  // KEYS count, KEYS, item count, then per item: key count, trailing count, packed, trailing…
  expect(args).toEqual([3, 'a', 'b', 'c', 2, 2, 0, '1,-12,,hold-1', 1, 1, '0,7', '{"x":1,"y":2}']);
  expect(() => batchArgs([{ keys: ['a'], args: ['x,y'] }])).toThrow(/comma/);
});

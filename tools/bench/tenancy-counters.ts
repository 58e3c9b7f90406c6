/**
 * The tenancy hot path's one Redis round trip: check-and-reserve of RPM, TPM
 * and a budget on a four-level chain (key → project → team → org), then the
 * settle, against the in-process and the Redis counters; plus a usage-ledger
 * append (XADD). Prints per-operation latency percentiles and throughput at
 * a few concurrencies. Needs Redis at 127.0.0.1:6379 (or LLMGW_BENCH_REDIS).
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/tenancy-counters.ts [--quick]
 */
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import {
  type LimitCounters,
  MemoryLimitCounters,
  MemoryUsageLedger,
  RedisLimitCounters,
  RedisUsageLedger,
  type ReserveRequest,
  type UsageLedger,
} from '@llmgw/stores';
import { periodBounds } from '@llmgw/tenancy';

const quick = process.argv.includes('--quick');
const OPS = quick ? 2_000 : 50_000;
const CONCURRENCY = quick ? [1, 16] : [1, 16, 64];

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function request(keys: number, i: number): ReserveRequest {
  const k = `key:k${i % keys}`;
  const day = periodBounds('day', Date.now());
  // Limits high enough never to refuse: the bench measures the work, not rejections.
  return {
    nowMs: Date.now(),
    rpm: [
      { scope: k, limit: 1e9 },
      { scope: 'project:p', limit: 1e9 },
      { scope: 'team:t', limit: 1e9 },
      { scope: 'org:o', limit: 1e9 },
    ],
    tpm: [
      { scope: k, limit: 1e12 },
      { scope: 'org:o', limit: 1e12 },
    ],
    tokens: 300,
    budgets: [{ scope: 'team:t', limitMicros: 1e15, periodStart: day.start, periodEnd: day.end }],
    micros: 1200,
  };
}

async function run(name: string, concurrency: number, op: (i: number) => Promise<void>): Promise<string> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= OPS) return;
        const t = performance.now();
        await op(i);
        lat.push(performance.now() - t);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return `${name.padEnd(46)} ${String(concurrency).padStart(4)} ${(OPS / secs).toFixed(0).padStart(9)} ${(pct(lat, 50) * 1000).toFixed(0).padStart(8)} ${(pct(lat, 99) * 1000).toFixed(0).padStart(8)}`;
}

async function main(): Promise<void> {
  const redis = new Redis(process.env.LLMGW_BENCH_REDIS ?? 'redis://127.0.0.1:6379');
  const prefix = `bench:${randomUUID()}:`;
  const counters: Array<[string, LimitCounters]> = [
    ['memory', new MemoryLimitCounters()],
    ['redis (one Lua call)', new RedisLimitCounters(redis, prefix)],
  ];
  const ledgers: Array<[string, UsageLedger]> = [
    ['memory', new MemoryUsageLedger()],
    ['redis (XADD)', new RedisUsageLedger(redis, prefix)],
  ];
  console.log(`tenancy counters and ledger, ${OPS} operations per row${quick ? ' (quick)' : ''}`);
  console.log(`${'operation'.padEnd(46)} conc     ops/s   p50 µs   p99 µs`);
  try {
    for (const [name, c] of counters) {
      for (const conc of CONCURRENCY) {
        console.log(
          await run(`reserve+settle, 4 levels, ${name}`, conc, async (i) => {
            const r = await c.reserve(request(1000, i));
            if (!r.ok) throw new Error(`refused: ${r.kind}`);
            await c.settle(r.reservation, { tokens: 120, micros: 500 }, Date.now());
          }),
        );
      }
    }
    for (const [name, l] of ledgers) {
      await l.ensureGroup();
      for (const conc of CONCURRENCY) {
        console.log(
          await run(`ledger append, ${name}`, conc, async (i) => {
            await l.append({
              recordId: `rec${i}`,
              requestId: `r${i}`,
              ts: Date.now(),
              keyId: 'k',
              projectId: 'p',
              model: 'm',
              servedModel: 'm',
              status: 200,
              promptTokens: 100,
              completionTokens: 20,
              cachedTokens: 0,
              durationMs: 50,
              costMicros: 120,
            });
          }),
        );
      }
      await l.close();
    }
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
}

void main();

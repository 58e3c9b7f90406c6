/**
 * The tenancy hot path on the shared counters: check-and-reserve of RPM, TPM
 * and a budget on a four-level chain (key → project → team → org) before the
 * request, then the settle with the usage record's append (one Lua call, what
 * the durable-usage hold waits on before the last bytes), against the
 * in-process counters and Redis, with counter leases off (every reserve is a
 * Redis call, batched with those arriving together) and on (the production
 * default: most reserves admitted from a local lease); plus a usage-ledger
 * append (XADD). Prints, per row, throughput, what a request waits before it
 * is forwarded (reserve) and before its last bytes (settle + append), and the
 * Redis commands sent per request. Needs Redis at 127.0.0.1:6379 (or LLMGW_BENCH_REDIS).
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/tenancy-counters.ts [--quick] [--keys N] [--ops N]
 */
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import {
  encodeLedgerRecord,
  LeasedLimitCounters,
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
const opsArg = process.argv.indexOf('--ops');
const OPS = opsArg > 0 ? Number(process.argv[opsArg + 1]) : quick ? 2_000 : 50_000;
const CONCURRENCY = quick ? [1, 16] : [1, 16, 64];
const keysArg = process.argv.indexOf('--keys');
const KEYS = keysArg > 0 ? Number(process.argv[keysArg + 1]) : 20;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
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

/** Runs `op` OPS times at `concurrency`; `op` reports its own phases' latencies (ms). */
async function run(concurrency: number, op: (i: number, lat: (phase: 0 | 1, ms: number) => void) => Promise<void>) {
  const lat: [number[], number[]] = [[], []];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= OPS) return;
        await op(i, (phase, ms) => lat[phase].push(ms));
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return { opsPerSec: OPS / secs, lat };
}

const us = (ms: number) => (ms * 1000).toFixed(0).padStart(7);

/** Counts the commands a client sends (a batched script call is one). */
function countCommands(redis: Redis): () => number {
  let n = 0;
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((...a: Parameters<Redis['sendCommand']>) => (n++, send(...a))) as Redis['sendCommand'];
  return () => n;
}

async function main(): Promise<void> {
  const redis = new Redis(process.env.LLMGW_BENCH_REDIS ?? 'redis://127.0.0.1:6379');
  const prefix = `bench:${randomUUID()}:`;
  const commands = countCommands(redis);
  const stream = `${prefix}usage`;
  const record = encodeLedgerRecord({
    recordId: 'rec',
    requestId: 'r',
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
  const shared = () => new RedisLimitCounters(redis, `${prefix}${randomUUID()}:`);
  const leased = () => new LeasedLimitCounters(shared(), { ttlMs: 5_000, fraction: 0.1, now: Date.now });
  const counters: Array<[string, () => LimitCounters]> = [
    ['memory', () => new MemoryLimitCounters()],
    ['redis, unbatched', () => new RedisLimitCounters(redis, `${prefix}${randomUUID()}:`, 1)],
    ['redis, leases off', shared],
    ['redis, leases on', leased],
  ];
  const ledgers: Array<[string, UsageLedger]> = [
    ['memory', new MemoryUsageLedger()],
    ['redis (XADD)', new RedisUsageLedger(redis, prefix)],
  ];
  console.log(`tenancy counters and ledger, ${OPS} operations per row, ${KEYS} keys sharing project/team/org${quick ? ' (quick)' : ''}`);
  console.log(`reserve = waited before forwarding; settle = settle + usage append (one call; the durable hold waits on it)`);
  console.log(`unbatched = one script call per reserve and per settle (the reference); leases off = batched; leases on = the production default`);
  console.log(`${'counters'.padEnd(22)} conc     ops/s  reserve p50/p99 µs  settle p50/p99 µs  redis cmds/req`);
  const summary: string[] = [];
  try {
    for (const [name, make] of counters) {
      for (const conc of CONCURRENCY) {
        const c = make();
        const base = (c instanceof LeasedLimitCounters ? c.inner : c) as LimitCounters & Partial<RedisLimitCounters>;
        const before = commands();
        const r = await run(conc, async (i, lat) => {
          let t = performance.now();
          const res = await c.reserve(request(KEYS, i));
          lat(0, performance.now() - t);
          if (!res.ok) throw new Error(`refused: ${res.kind}`);
          t = performance.now();
          if (base.settleAndAppend) await base.settleAndAppend(res.reservation, { tokens: 120, micros: 500 }, Date.now(), stream, 100_000, record);
          else await c.settle(res.reservation, { tokens: 120, micros: 500 }, Date.now());
          lat(1, performance.now() - t);
        });
        if (c instanceof LeasedLimitCounters) await c.close();
        const perReq = (commands() - before) / OPS;
        const line = `${name.padEnd(22)} ${String(conc).padStart(4)} ${r.opsPerSec.toFixed(0).padStart(9)}  ${us(pct(r.lat[0], 50))} ${us(pct(r.lat[0], 99))}     ${us(pct(r.lat[1], 50))} ${us(pct(r.lat[1], 99))}    ${perReq.toFixed(3).padStart(8)}`;
        console.log(line);
        if (name !== 'memory') summary.push(`${name} conc ${conc}: reserve p50 ${us(pct(r.lat[0], 50)).trim()} µs, ${perReq.toFixed(3)} redis cmds/req`);
      }
    }
    console.log(`\n${'ledger'.padEnd(22)} conc     ops/s   p50 µs   p99 µs`);
    for (const [name, l] of ledgers) {
      await l.ensureGroup();
      for (const conc of CONCURRENCY) {
        const r = await run(conc, async (i, lat) => {
          const t = performance.now();
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
          lat(0, performance.now() - t);
        });
        console.log(`${name.padEnd(22)} ${String(conc).padStart(4)} ${r.opsPerSec.toFixed(0).padStart(9)}  ${us(pct(r.lat[0], 50))}  ${us(pct(r.lat[0], 99))}`);
      }
      await l.close();
    }
    console.log(`\nsummary (leases off vs on, same run):\n  ${summary.join('\n  ')}`);
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
}

void main();

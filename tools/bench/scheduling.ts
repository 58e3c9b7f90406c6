/**
 * Micro benchmark of one scheduling decision (`schedule()`), per profile and
 * candidate count (2 to 32 endpoints). Prints ns per decision, wall and CPU
 * (the process's CPU time: what a decision costs when other work shares the
 * cores), and the ratio to the reference measured in the same run at the same
 * count: the `debug` profile (round robin and the inflight scorer), the
 * cheapest decision the pipeline takes. Target: < 20 µs per decision up to 16
 * endpoints with the built-in profiles and a prompt.
 *
 * The built-in profiles' cache-aware scorer is `prefix`: their requests carry
 * one of 1000 prompts (a shared system prompt and a conversation of its own,
 * about 1 KB), so the decision includes the tree lookup and the insert after
 * the pick. Hashing the prompt text is not included (it is memoized per
 * prompt and done once per request by the router; its cost is in
 * docs/performance.md, prefix-aware routing). Tier-0 session affinity is
 * measured on a configured `sessions` profile (session 3, queue 1, kv 1).
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/scheduling.ts [--quick]
 */
import { performance } from 'node:perf_hooks';
import { buildProfiles, schedule, type EndpointView } from '@llmgw/scheduling';
import { seeded, testEndpoint } from '@llmgw/scheduling/testing';

const quick = process.argv.includes('--quick');
const decisions = quick ? 20_000 : 300_000;
const profiles = buildProfiles({ sessions: { scorers: { session: 3, queue: 1, kv: 1, inflight: 1 }, picker: { type: 'max-score' } } });
const SYSTEM = 'You are a careful assistant; answer briefly and cite the plan. '.repeat(8);

function fleet(n: number, pools: number): EndpointView[] {
  const random = seeded(n);
  return Array.from({ length: n }, (_, i) =>
    testEndpoint(`replica-${i}`, {
      pool: `pool-${i % pools}`,
      poolPriority: 100 - (i % pools) * 10,
      inflight: Math.floor(random() * 8),
      drainRate: 1 + random() * 4,
      stats: { waiting: Math.floor(random() * 3), running: Math.floor(random() * 16), kvUsage: random() * 0.8 },
    }),
  );
}

interface Case {
  profile: string;
  n: number;
  pools: number;
  /** What the request carries for the cache-aware scorer: a prompt (prefix), a session key (session), or nothing. */
  key: 'prompt' | 'session' | 'none';
  /** A retry: the first endpoint is excluded. */
  retry?: boolean;
}

function run(c: Case): { wall: number; cpu: number } {
  const eps = fleet(c.n, c.pools);
  const profile = profiles.get(c.profile)!;
  const random = seeded(1);
  const keys = Array.from({ length: 1000 }, (_, i) => `session-${i}`);
  const reqs = keys.map((k, i) => ({
    requestId: `r${i}`,
    model: 'm',
    profile: c.profile,
    sessionKey: c.key === 'session' ? k : undefined,
    prompt: c.key === 'prompt' ? { text: `${SYSTEM}conversation ${i}: ${'and the next question about it. '.repeat(16)}` } : undefined,
    estimatedPromptTokens: 500,
  }));
  const exclude = c.retry ? new Set([eps[0].id]) : undefined;
  let sink = 0;
  // Warm up the JIT, the ring cache, the tree and the prompts' hash memo.
  for (let i = 0; i < 2000; i++) sink += schedule(profile, reqs[i % 1000], eps, { random }).considered;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < decisions; i++) {
    const ep = eps[i % eps.length];
    // The router's inflight counts change between decisions.
    ep.inflight = (ep.inflight + 1) % 8;
    const r = schedule(profile, reqs[i % 1000], eps, { random, exclude });
    if (r.kind === 'picked') sink++;
  }
  const wall = ((performance.now() - t0) * 1e6) / decisions;
  const cu = process.cpuUsage(c0);
  if (sink < 0) console.log(sink);
  return { wall, cpu: ((cu.user + cu.system) * 1e3) / decisions };
}

const cases: Case[] = [];
for (const n of [2, 4, 8, 16, 32]) {
  cases.push({ profile: 'debug', n, pools: 1, key: 'none' });
  cases.push({ profile: 'chat', n, pools: 1, key: 'prompt' });
  cases.push({ profile: 'chat', n, pools: 1, key: 'none' });
  cases.push({ profile: 'chat', n, pools: 3, key: 'prompt' });
  cases.push({ profile: 'chat', n, pools: 1, key: 'prompt', retry: true });
  cases.push({ profile: 'batch', n, pools: 1, key: 'prompt' });
  cases.push({ profile: 'long-context', n, pools: 1, key: 'prompt' });
  cases.push({ profile: 'sessions', n, pools: 1, key: 'session' });
  cases.push({ profile: 'sessions', n, pools: 1, key: 'session', retry: true });
}

console.log(`schedule() micro benchmark, ${decisions} decisions per case${quick ? ' (quick)' : ''}; the machine may be loaded by other work`);
console.log('profile        endpoints pools key     retry   wall ns   CPU ns  CPU ÷ debug');
let worst = 0;
let reference = 1;
run(cases[0]); // warm-up: the first case's figures would carry the JIT's start
for (const c of cases) {
  const { wall, cpu } = run(c);
  if (c.profile === 'debug') reference = cpu;
  else if (c.n <= 16 && c.key === 'prompt') worst = Math.max(worst, cpu);
  console.log(
    `${c.profile.padEnd(14)} ${String(c.n).padStart(9)} ${String(c.pools).padStart(5)} ${c.key.padEnd(7)} ${String(c.retry ?? false).padEnd(5)} ${wall.toFixed(0).padStart(9)} ${cpu.toFixed(0).padStart(8)} ${(cpu / reference).toFixed(1).padStart(12)}`,
  );
}
console.log(`worst CPU per decision with a prompt up to 16 endpoints: ${(worst / 1000).toFixed(2)} µs (target < 20 µs)`);

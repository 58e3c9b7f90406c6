/**
 * The lumps in a V8 CPU profile: stretches where the event loop was busy without a break (consecutive
 * samples none of which is `(idle)`). A request that arrives during one waits for it to end, so a
 * process whose busy time comes in long stretches has a long latency tail at the same CPU per request.
 *
 * Prints how the busy time divides by stretch length, what the long stretches are made of against
 * the busy time as a whole (the groups of lib/cpu-summary.ts, and the task each sample runs under:
 * the outermost JavaScript frame), the longest stretches one by one, and the sampler's own gaps
 * (a sample arriving much later than the interval asked: the whole process was off the CPU).
 *
 *   npx tsx tools/bench/lib/cpu-stretches.ts file.cpuprofile [--map dist/apps/router/main.js.map] [--min-ms 3] [--top 20]
 *     [--from-s S --to-s S] (only the samples between S and S seconds after the profile started)
 */
import { groupOf, summaryArgs } from './cpu-summary';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

const BOUNDS_MS = [0.5, 1, 2, 5, 10, Infinity];

function main(): void {
  const { profile, map, bundle, top, fromS, toS } = summaryArgs(
    'cpu-stretches.ts file.cpuprofile [--map bundle.js.map] [--min-ms 3] [--top 20] [--from-s S --to-s S]',
    20,
  );
  const argv = process.argv;
  const opt = (name: string, dflt: number) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : dflt);
  const minUs = opt('min-ms', 3) * 1000;
  const fromUs = fromS * 1e6;
  const toUs = toS * 1e6;
  const nodes = profile.nodes as Node[];
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // The task a sample runs under: its outermost frame below (root) that has a name.
  const taskCache = new Map<number, string>();
  const taskOf = (id: number): string => {
    const hit = taskCache.get(id);
    if (hit !== undefined) return hit;
    const chain: Node[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) chain.push(byId.get(cur)!);
    chain.reverse(); // (root) first
    const named = chain.slice(1).find((n) => n.callFrame.functionName && n.callFrame.functionName !== '(anonymous)') ?? chain[chain.length - 1];
    const f = named.callFrame;
    const task = f.url ? `${f.functionName} (${groupOf(f, map, bundle)})` : f.functionName;
    taskCache.set(id, task);
    return task;
  };
  const samples: number[] = profile.samples;
  const deltas: number[] = profile.timeDeltas;
  const interval = Number(process.env.LLMGW_CPU_PROF_INTERVAL_US ?? 0);

  type Stretch = { startUs: number; us: number; ids: number[]; dts: number[] };
  const stretches: Stretch[] = [];
  let cur: Stretch | undefined;
  let t = 0;
  const gaps: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    const dt = deltas[i] ?? 0;
    t += dt;
    if (t < fromUs || t > toUs) continue;
    gaps.push(dt);
    const f = byId.get(samples[i])!.callFrame;
    if (f.functionName === '(idle)') {
      if (cur) stretches.push(cur);
      cur = undefined;
      continue;
    }
    cur ??= { startUs: t - dt, us: 0, ids: [], dts: [] };
    cur.us += dt;
    cur.ids.push(samples[i]);
    cur.dts.push(dt);
  }
  if (cur) stretches.push(cur);

  const busyUs = stretches.reduce((a, s) => a + s.us, 0);
  console.log(`busy ${(busyUs / 1000).toFixed(0)} ms in ${stretches.length} stretches; by stretch length:`);
  let lo = 0;
  for (const hi of BOUNDS_MS) {
    const inB = stretches.filter((s) => s.us >= lo * 1000 && s.us < hi * 1000);
    const us = inB.reduce((a, s) => a + s.us, 0);
    console.log(
      `  ${`${lo}–${hi === Infinity ? '' : hi} ms`.padEnd(12)} ${String(inB.length).padStart(7)} stretches  ${((100 * us) / busyUs).toFixed(1).padStart(5)} % of busy time`,
    );
    lo = hi;
  }

  // What the long stretches are made of, against the busy time as a whole.
  const tally = (sel: Stretch[], key: (id: number) => string) => {
    const m = new Map<string, number>();
    for (const s of sel) s.ids.forEach((id, k) => m.set(key(id), (m.get(key(id)) ?? 0) + s.dts[k]));
    return m;
  };
  const long = stretches.filter((s) => s.us >= minUs);
  const longUs = long.reduce((a, s) => a + s.us, 0);
  const compare = (title: string, key: (id: number) => string) => {
    const all = tally(stretches, key);
    const inLong = tally(long, key);
    console.log(`\n${title}: share of the stretches ≥ ${minUs / 1000} ms (${(longUs / 1000).toFixed(0)} ms) against all busy time`);
    for (const [k, us] of [...inLong].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`  ${((100 * us) / longUs).toFixed(1).padStart(5)} %  ${((100 * (all.get(k) ?? 0)) / busyUs).toFixed(1).padStart(5)} %  ${k}`);
  };
  compare('tasks', taskOf);
  compare('groups', (id) => groupOf(byId.get(id)!.callFrame, map, bundle));

  console.log(`\nthe ${Math.min(top, long.length)} longest stretches (start s, ms, their three largest tasks):`);
  for (const s of [...long].sort((a, b) => b.us - a.us).slice(0, top)) {
    const parts = [...tally([s], taskOf)].sort((a, b) => b[1] - a[1]).slice(0, 3);
    console.log(
      `  ${(s.startUs / 1e6).toFixed(3).padStart(8)}  ${(s.us / 1000).toFixed(1).padStart(6)}  ${parts.map(([k, us]) => `${k} ${(us / 1000).toFixed(1)}`).join('; ')}`,
    );
  }

  // The sampler's gaps: a delta far above the interval asked for means the process did not run.
  const want = interval || [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)];
  const late = gaps.filter((g) => g > 10 * want);
  console.log(
    `\nsampler: median interval ${want} µs; ${late.length} gaps over ${(10 * want) / 1000} ms (${(late.reduce((a, g) => a + g, 0) / 1000).toFixed(0)} ms in all, longest ${(Math.max(0, ...late) / 1000).toFixed(1)} ms)`,
  );
}

main();

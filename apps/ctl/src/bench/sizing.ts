/**
 * Sizing from stored capacity profiles (docs/capacity.md, `ctl plan`): the
 * cheapest number of replicas per launch profile (GPU class) whose measured
 * capacity covers a target load. One replica of a profile delivers, within
 * the SLO, its measured output tokens/s at MaxConcurrencyAtSLO, and that
 * divided by the benchmark's output length in requests/s.
 */

export interface SizingProfile {
  profile: string;
  gpuClass: string;
  maxConcurrencyAtSlo: number;
  throughputTokPerSec: number;
  outputTokens: number;
  relativeCost: number;
}

export type Target = { kind: 'rps'; value: number } | { kind: 'tokens-per-sec'; value: number };

export interface PlanLine {
  profile: string;
  gpuClass: string;
  replicas: number;
  /** What one replica delivers, in the target's unit. */
  perReplica: number;
  cost: number;
}

export interface Plan {
  lines: PlanLine[];
  replicas: number;
  capacity: number;
  cost: number;
}

/** One replica's capacity in the target's unit; 0 when the profile measured none. */
export function perReplica(p: SizingProfile, t: Target): number {
  if (p.maxConcurrencyAtSlo <= 0 || p.throughputTokPerSec <= 0) return 0;
  return t.kind === 'tokens-per-sec' ? p.throughputTokPerSec : p.throughputTokPerSec / Math.max(1, p.outputTokens);
}

/**
 * The cheapest mix (ties: fewer replicas, then the profile order given)
 * covering `t`. Searches every count of every profile up to what covers the
 * target alone; undefined when no profile has any capacity.
 */
export function cheapestPlan(profiles: readonly SizingProfile[], t: Target): Plan | undefined {
  const usable = profiles.filter((p) => perReplica(p, t) > 0);
  if (!usable.length) return undefined;
  const caps = usable.map((p) => perReplica(p, t));
  const limits = caps.map((c) => Math.ceil(t.value / c));
  let best: { counts: number[]; cost: number; replicas: number } | undefined;
  const counts = new Array<number>(usable.length).fill(0);
  let budget = 2_000_000;
  const walk = (i: number, capacity: number, cost: number, replicas: number): void => {
    if (--budget < 0) return;
    if (capacity >= t.value - 1e-9) {
      if (!best || cost < best.cost - 1e-9 || (Math.abs(cost - best.cost) <= 1e-9 && replicas < best.replicas)) best = { counts: [...counts], cost, replicas };
      return;
    }
    if (i === usable.length) return;
    if (best && cost >= best.cost + 1e-9) return;
    for (let n = 0; n <= limits[i]; n++) {
      counts[i] = n;
      walk(i + 1, capacity + n * caps[i], cost + n * usable[i].relativeCost, replicas + n);
    }
    counts[i] = 0;
  };
  walk(0, 0, 0, 0);
  if (!best) return undefined;
  const lines = usable
    .map((p, i) => ({ profile: p.profile, gpuClass: p.gpuClass, replicas: best!.counts[i], perReplica: caps[i], cost: p.relativeCost }))
    .filter((l) => l.replicas > 0);
  return { lines, replicas: best.replicas, capacity: lines.reduce((s, l) => s + l.replicas * l.perReplica, 0), cost: best.cost };
}

/** The same target served by one profile alone, for comparison. */
export function singleProfilePlans(profiles: readonly SizingProfile[], t: Target): Plan[] {
  return profiles
    .filter((p) => perReplica(p, t) > 0)
    .map((p) => {
      const cap = perReplica(p, t);
      const n = Math.ceil(t.value / cap - 1e-9);
      return {
        lines: [{ profile: p.profile, gpuClass: p.gpuClass, replicas: n, perReplica: cap, cost: p.relativeCost }],
        replicas: n,
        capacity: n * cap,
        cost: n * p.relativeCost,
      };
    });
}

const num = (x: number) => String(Math.round(x * 100) / 100);

/** The arithmetic, one line per profile: "ceil(100 / 20.45 req/s) = 5 × cost 1 = 5". */
export function planArithmetic(p: Plan, t: Target): string[] {
  const unit = t.kind === 'rps' ? 'req/s' : 'tok/s';
  return p.lines.map(
    (l) =>
      `${l.replicas} × ${l.profile} (${l.gpuClass || 'cpu'}): ${l.replicas} × ${num(l.perReplica)} ${unit} = ${num(l.replicas * l.perReplica)} ${unit}, cost ${l.replicas} × ${num(l.cost)} = ${num(l.replicas * l.cost)}`,
  );
}

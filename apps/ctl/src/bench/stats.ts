/**
 * The arithmetic of `llmgw ctl bench` (docs/capacity.md): percentiles of one
 * concurrency step, the SLO check, and MaxConcurrencyAtSLO. Pure: the load
 * driver (./drive.ts) hands it samples and engine readings.
 */
import { parseDurationMs } from '@llmgw/config';
import { usage } from '../format';

/** The service level a step must meet: p99 time to first token and p99 time per output token, ms. */
export interface Slo {
  ttftP99Ms: number;
  tpotP99Ms: number;
}

/** The default SLO: TPOT p99 ≤ 50 ms and TTFT p99 ≤ 2 s. */
export const DEFAULT_SLO: Slo = { ttftP99Ms: 2000, tpotP99Ms: 50 };

/** "ttft_p99=2s,tpot_p99=50ms" (either part may be left out: the default's value stays). */
export function parseSlo(s: string): Slo {
  const slo = { ...DEFAULT_SLO };
  for (const part of s
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(ttft_p99|tpot_p99)\s*(?:=|<=|≤)\s*(\S+)$/.exec(part);
    if (!m) throw usage(`--slo: "${part}" is not ttft_p99=<duration> or tpot_p99=<duration>`);
    let ms: number;
    try {
      ms = parseDurationMs(m[2]);
    } catch {
      throw usage(`--slo: "${m[2]}" is not a duration (50ms, 2s)`);
    }
    if (!(ms > 0)) throw usage(`--slo: ${m[1]} must be above 0`);
    if (m[1] === 'ttft_p99') slo.ttftP99Ms = ms;
    else slo.tpotP99Ms = ms;
  }
  return slo;
}

export function formatSlo(slo: Slo): string {
  return `TPOT p99 ≤ ${slo.tpotP99Ms} ms && TTFT p99 ≤ ${slo.ttftP99Ms} ms`;
}

/** One request of a step, as the client saw it. */
export interface Sample {
  ok: boolean;
  /** Request sent to first output token, ms. */
  ttftMs: number;
  /** (last token − first token) / (output tokens − 1), ms; 0 with one token. */
  tpotMs: number;
  outputTokens: number;
  /** As the engine counted them (usage), when it said. */
  promptTokens?: number;
  /** HTTP status or error text when not ok. */
  error?: string;
}

/** What the engine reported while a step ran (the control API's engine stats). */
export interface EngineReading {
  waiting: number;
  running: number;
  /** 0..1, when the engine reports it. */
  kvUsage?: number;
}

export interface StepResult {
  concurrency: number;
  requests: number;
  failed: number;
  ttftMs: { p50: number; p95: number; p99: number };
  tpotMs: { p50: number; p99: number };
  /** Mean prompt tokens as the engine counted them; undefined when no usage came back. */
  promptTokensMean?: number;
  /** Output tokens per second over the step's wall time. */
  tokensPerSec: number;
  /** Highest queue depth and KV usage the engine reported during the step (undefined: no reading). */
  engineWaitingMax?: number;
  engineRunningMax?: number;
  kvUsageMax?: number;
  meetsSlo: boolean;
  /** Why not, when it does not. */
  breaks?: string;
  /**
   * Set when the level ran twice: why its first run broke the SLO. A break counts only when the
   * second run breaks too (noise on a shared machine only ever adds latency); these numbers are
   * the second run's.
   */
  firstRunBroke?: string;
}

/** The nearest-rank percentile (p in 0..100) of `xs`; 0 for none. */
export function percentile(xs: readonly number[], p: number): number {
  if (!xs.length) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** The step's numbers; a step with any failed request breaks the SLO. */
export function summarizeStep(concurrency: number, samples: readonly Sample[], wallMs: number, readings: readonly EngineReading[], slo: Slo): StepResult {
  const ok = samples.filter((s) => s.ok);
  const ttft = ok.map((s) => s.ttftMs);
  const tpot = ok.filter((s) => s.outputTokens > 1).map((s) => s.tpotMs);
  const tokens = ok.reduce((n, s) => n + s.outputTokens, 0);
  const failed = samples.length - ok.length;
  const r: StepResult = {
    concurrency,
    requests: samples.length,
    failed,
    ttftMs: { p50: round(percentile(ttft, 50)), p95: round(percentile(ttft, 95)), p99: round(percentile(ttft, 99)) },
    tpotMs: { p50: round(percentile(tpot, 50), 2), p99: round(percentile(tpot, 99), 2) },
    tokensPerSec: wallMs > 0 ? round((tokens * 1000) / wallMs) : 0,
    meetsSlo: true,
  };
  const prompts = ok.map((s) => s.promptTokens).filter((x): x is number => x !== undefined);
  if (prompts.length) r.promptTokensMean = Math.round(prompts.reduce((a, b) => a + b, 0) / prompts.length);
  if (readings.length) {
    r.engineWaitingMax = Math.max(...readings.map((x) => x.waiting));
    r.engineRunningMax = Math.max(...readings.map((x) => x.running));
    const kv = readings.map((x) => x.kvUsage).filter((x): x is number => x !== undefined);
    if (kv.length) r.kvUsageMax = round(Math.max(...kv), 3);
  }
  const why: string[] = [];
  if (failed) why.push(`${failed} of ${samples.length} requests failed (${samples.find((s) => !s.ok)?.error ?? 'error'})`);
  if (!ok.length) why.push('no request succeeded');
  if (r.ttftMs.p99 > slo.ttftP99Ms) why.push(`TTFT p99 ${r.ttftMs.p99} ms > ${slo.ttftP99Ms} ms`);
  if (r.tpotMs.p99 > slo.tpotP99Ms) why.push(`TPOT p99 ${r.tpotMs.p99} ms > ${slo.tpotP99Ms} ms`);
  if (why.length) {
    r.meetsSlo = false;
    r.breaks = why.join('; ');
  }
  return r;
}

/**
 * The concurrency levels to run: doubling from `start` until a step breaks
 * the SLO (or `max`), then halving the gap between the highest level that met
 * it and the lowest that broke it until that gap is at most `resolution`
 * (a fraction of the good level, at least 1). `next` gets the steps so far
 * and returns the next level, or undefined when the ramp is done.
 */
export function nextConcurrency(steps: readonly StepResult[], o: { start: number; max: number; resolution: number }): number | undefined {
  if (!steps.length) return Math.min(o.start, o.max);
  const good = steps.filter((s) => s.meetsSlo).map((s) => s.concurrency);
  const bad = steps.filter((s) => !s.meetsSlo).map((s) => s.concurrency);
  const hi = good.length ? Math.max(...good) : 0;
  const lo = bad.length ? Math.min(...bad) : Infinity;
  if (lo === Infinity) {
    if (hi >= o.max) return undefined;
    return Math.min(o.max, hi * 2);
  }
  if (hi === 0) return lo > 1 ? Math.max(1, Math.floor(lo / 2)) : undefined;
  const gap = lo - hi;
  if (gap <= Math.max(1, Math.floor(hi * o.resolution))) return undefined;
  const mid = Math.floor((hi + lo) / 2);
  return mid > hi && mid < lo ? mid : undefined;
}

/** The highest concurrency that met the SLO below the lowest one that broke it; 0 when none met it. */
export function maxConcurrencyAtSlo(steps: readonly StepResult[]): number {
  const lowestBad = Math.min(Infinity, ...steps.filter((s) => !s.meetsSlo).map((s) => s.concurrency));
  return Math.max(0, ...steps.filter((s) => s.meetsSlo && s.concurrency < lowestBad).map((s) => s.concurrency));
}

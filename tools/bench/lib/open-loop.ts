/**
 * What the latency benchmarks share: their command-line options and the
 * open-loop load generator (requests sent on a fixed schedule whatever the
 * answers' speed, so that a slow server shows as latency, not as less load).
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

/** `--quick` and `--name value` options of a benchmark's command line. */
export const quick = process.argv.includes('--quick');
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** A short non-streaming chat completion (one token): what the added-latency benchmarks send. */
export const SHORT_CHAT = JSON.stringify({ model: 'sim', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 });

/** Spawned roles log as in production; their output is drained unparsed so reading it does not load the generator. */
export const QUIET = { keepOutput: false };

/** The p-th percentile of `xs` (nearest rank); NaN when empty. */
export function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export interface LoadResult {
  /** Latencies (ms) of the 200 answers after the warm-up. */
  lat: number[];
  /** Non-200 answers and failed requests, warm-up included. */
  errors: number;
  sent: number;
}

/** Open-loop load: POST `body` to `${url}/v1/chat/completions` at `rate` req/s for `warmup` + `seconds`. */
export async function openLoop(url: string, rate: number, seconds: number, warmup: number, body = SHORT_CHAT): Promise<LoadResult> {
  const samples = await openLoopPhases(url, [{ rate, seconds: seconds + warmup }], { body });
  return { lat: latencies(samples, warmup * 1000), errors: failures(samples), sent: samples.length };
}

/** One request of `openLoopPhases`. */
export interface Sample {
  /** When the request was due, ms since the run started. */
  at: number;
  /** Latency in ms (NaN unless it got a 200). */
  ms: number;
  /** HTTP status; 0 when the request failed without one. */
  status: number;
}

/** One rate step of `openLoopPhases`. */
export interface Phase {
  rate: number;
  seconds: number;
}

export interface PhaseOptions {
  /** Request body (JSON text); POSTed to `${url}${path}`. */
  body?: string;
  path?: string;
  headers?: Record<string, string>;
  /** Connections the client may open (default 512). */
  connections?: number;
}

/** Open-loop load through `phases` (rate steps) in order; every request's sample, in schedule order. */
export async function openLoopPhases(url: string, phases: Phase[], o: PhaseOptions = {}): Promise<Sample[]> {
  const agent = new Agent({ connections: o.connections ?? 512, keepAliveTimeout: 60_000 });
  const headers = { 'content-type': 'application/json', ...(o.headers ?? {}) };
  const target = `${url}${o.path ?? '/v1/chat/completions'}`;
  const body = o.body ?? SHORT_CHAT;
  const samples: Sample[] = [];
  const inflight: Promise<void>[] = [];
  const one = async (s: Sample) => {
    const t = performance.now();
    try {
      const res = await request(target, { method: 'POST', body, headers, dispatcher: agent });
      await res.body.dump();
      s.status = res.statusCode;
      if (res.statusCode === 200) s.ms = performance.now() - t;
    } catch {
      s.status = 0;
    }
  };
  const t0 = performance.now();
  let start = 0;
  for (const ph of phases) {
    const n = Math.round(ph.rate * ph.seconds);
    for (let i = 0; i < n; i++) {
      const due = start + (i * 1000) / ph.rate;
      const wait = t0 + due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const s: Sample = { at: due, ms: NaN, status: -1 };
      samples.push(s);
      inflight.push(one(s));
    }
    start += ph.seconds * 1000;
  }
  await Promise.all(inflight);
  await agent.close();
  return samples;
}

/** Latencies of the samples due in [fromMs, toMs) that got a 200. */
export function latencies(samples: Sample[], fromMs = 0, toMs = Infinity): number[] {
  return samples.filter((s) => s.at >= fromMs && s.at < toMs && s.status === 200).map((s) => s.ms);
}

/** Samples that did not get a 200. */
export function failures(samples: Sample[]): number {
  return samples.filter((s) => s.status !== 200).length;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ). */
export const CLK_TCK = 100;

/** utime+stime (s) and RSS (MiB) of a process, from /proc. */
export function procUsage(pid: number): { cpuS: number; rssMiB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuS = (Number(f[11]) + Number(f[12])) / CLK_TCK;
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuS, rssMiB: rss ? Number(rss[1]) / 1024 : NaN };
}

/** CPU ms per request of process `pid` since `u0` (its procUsage before `requests` were sent); '' when there is no process to read. */
export const cpuPerRequest = (pid: number | undefined, u0: { cpuS: number } | undefined, requests: number): string =>
  pid && u0 ? `${((1000 * (procUsage(pid).cpuS - u0.cpuS)) / requests).toFixed(2)} ms` : '';

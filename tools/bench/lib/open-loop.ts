/**
 * What the latency benchmarks share: their command-line options and the
 * open-loop load generator (requests sent on a fixed schedule whatever the
 * answers' speed, so that a slow server shows as latency, not as less load).
 */
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
  const agent = new Agent({ connections: 512, keepAliveTimeout: 30_000 });
  const lat: number[] = [];
  let errors = 0;
  let sent = 0;
  const inflight: Promise<void>[] = [];
  const t0 = performance.now();
  const total = (seconds + warmup) * rate;
  const one = async (measure: boolean) => {
    const s = performance.now();
    try {
      const res = await request(`${url}/v1/chat/completions`, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher: agent });
      await res.body.dump();
      if (res.statusCode !== 200) errors++;
      else if (measure) lat.push(performance.now() - s);
    } catch {
      errors++;
    }
  };
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inflight.push(one(i >= warmup * rate));
    sent++;
  }
  await Promise.all(inflight);
  await agent.close();
  return { lat, errors, sent };
}

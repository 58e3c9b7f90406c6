/**
 * The load driver of `llmgw ctl bench` (docs/capacity.md): streaming chat
 * completions through a router with the replica pinned (`x-llmgw-replica`,
 * docs/router.md), so that keys, admission, scheduling and the proxy are all
 * on the measured path. Closed loop: each step keeps exactly `concurrency`
 * requests in flight until it has sent its quota.
 */
import { randomBytes } from 'node:crypto';
import { maxConcurrencyAtSlo, nextConcurrency, summarizeStep, type EngineReading, type Sample, type Slo, type StepResult } from './stats';

export interface BenchTarget {
  routerUrl: string;
  /** Bearer key; undefined on a router without auth. */
  key?: string;
  model: string;
  /** The pinned replica id. */
  replica: string;
}

export interface RampOptions {
  promptTokens: number;
  outputTokens: number;
  /** Fraction (0..1) of the prompt shared by every request of a ramp: the prefix-cache hit rate aimed at. */
  prefixShare: number;
  /** Requests per step = max(minRequests, concurrency × requestsPerSlot). */
  minRequests: number;
  requestsPerSlot: number;
  startConcurrency: number;
  maxConcurrency: number;
  /** Stop refining when the gap between the last good and the first bad level is at most this fraction. */
  resolution: number;
  slo: Slo;
  /** Per request, ms. */
  requestTimeoutMs: number;
  /** Run a level that broke the SLO once more, and count it broken only if it breaks again (default true). */
  confirmBreaks?: boolean;
}

export interface RampResult {
  prefixShare: number;
  steps: StepResult[];
  maxConcurrencyAtSlo: number;
  /** The last step at MaxConcurrencyAtSLO (its numbers become the capacity profile). */
  atSlo?: StepResult;
}

/** Common English words: one token each in the Llama 3 tokenizer (after a space), about one in most. */
const WORDS =
  'the of and to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part'.split(
    ' ',
  );

/** A prompt of about `tokens` tokens whose first `share` is the same for every request of a ramp (`common` seeds it). */
export function benchPrompt(tokens: number, share: number, common: string, i: number): string {
  const shared = Math.round(tokens * share);
  const words = (seed: string, n: number) => {
    let h = 2166136261;
    for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    return Array.from({ length: n }, () => WORDS[(h = Math.imul(h ^ (h >>> 13), 1274126177) >>> 0) % WORDS.length]).join(' ');
  };
  const unique = `${randomBytes(4).toString('hex')}-${i}`;
  return `${words(common, shared)} ${words(unique, Math.max(1, tokens - shared))}`.trim();
}

/** One streamed request; measures TTFT at the first content token and TPOT over the rest. */
export async function benchRequest(
  t: BenchTarget,
  prompt: string,
  outputTokens: number,
  timeoutMs: number,
  now: () => number = () => performance.now(),
): Promise<Sample> {
  const started = now();
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), timeoutMs);
  try {
    const res = await fetch(new URL('/v1/chat/completions', t.routerUrl), {
      method: 'POST',
      signal: ctrl.signal,
      // The top band (a key's own band wins): admission lets it fill the whole replica, which is what is measured.
      headers: {
        'content-type': 'application/json',
        'x-llmgw-replica': t.replica,
        'x-llmgw-band': 'platinum',
        ...(t.key ? { authorization: `Bearer ${t.key}` } : {}),
      },
      body: JSON.stringify({
        model: t.model,
        stream: true,
        max_tokens: outputTokens,
        min_tokens: outputTokens,
        ignore_eos: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: prompt }],
      }),
    });
    if (res.status !== 200 || !res.body) {
      const body = await res.text().catch(() => '');
      return { ok: false, ttftMs: 0, tpotMs: 0, outputTokens: 0, error: `HTTP ${res.status} ${body.slice(0, 160)}` };
    }
    let first = 0;
    let last = 0;
    let chunks = 0;
    let usageTokens: number | undefined;
    let promptTokens: number | undefined;
    let buf = '';
    const decoder = new TextDecoder();
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(part, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') continue;
        const ev = JSON.parse(data) as {
          choices?: Array<{ delta?: { content?: string } }>;
          usage?: { completion_tokens?: number; prompt_tokens?: number } | null;
        };
        if (ev.usage?.completion_tokens !== undefined) usageTokens = ev.usage.completion_tokens;
        if (ev.usage?.prompt_tokens !== undefined) promptTokens = ev.usage.prompt_tokens;
        if (ev.choices?.[0]?.delta?.content) {
          const at = now();
          if (!first) first = at;
          last = at;
          chunks++;
        }
      }
    }
    if (!first) return { ok: false, ttftMs: 0, tpotMs: 0, outputTokens: 0, error: 'no token streamed' };
    const n = usageTokens ?? chunks;
    return {
      ok: true,
      ttftMs: first - started,
      tpotMs: chunks > 1 ? (last - first) / (chunks - 1) : 0,
      outputTokens: n,
      ...(promptTokens !== undefined ? { promptTokens } : {}),
    };
  } catch (e) {
    return { ok: false, ttftMs: 0, tpotMs: 0, outputTokens: 0, error: ctrl.signal.aborted ? `timed out after ${timeoutMs} ms` : (e as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `total` requests keeping `concurrency` in flight; `sample` reads the engine every ~250 ms meanwhile. */
export async function runStep(
  concurrency: number,
  total: number,
  send: (i: number) => Promise<Sample>,
  sample?: () => Promise<EngineReading | undefined>,
): Promise<{ samples: Sample[]; wallMs: number; readings: EngineReading[] }> {
  const samples: Sample[] = [];
  const readings: EngineReading[] = [];
  let next = 0;
  let done = false;
  const started = performance.now();
  const poller = (async () => {
    while (sample && !done) {
      const r = await sample().catch(() => undefined);
      if (r) readings.push(r);
      await new Promise((res) => setTimeout(res, 250));
    }
  })();
  const worker = async () => {
    while (next < total) samples.push(await send(next++));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  done = true;
  await poller;
  return { samples, wallMs, readings };
}

/** One ramp: levels chosen by nextConcurrency until MaxConcurrencyAtSLO is pinned down. */
export async function runRamp(
  t: BenchTarget,
  o: RampOptions,
  hooks: {
    sample?: () => Promise<EngineReading | undefined>;
    onStep?: (s: StepResult, prefixShare: number) => void;
    /** One request (default: a streamed chat completion through the router; tests give their own). */
    send?: (prompt: string) => Promise<Sample>;
    /** `again`: the level broke the SLO and runs once more to confirm it. */
    onStart?: (concurrency: number, requests: number, prefixShare: number, again: boolean) => void;
  },
): Promise<RampResult> {
  const steps: StepResult[] = [];
  const common = randomBytes(3).toString('hex');
  // Warm-up, not counted: the first requests pay for connections and caches along the path.
  const send = hooks.send ?? ((prompt: string) => benchRequest(t, prompt, o.outputTokens, o.requestTimeoutMs));
  for (let i = 0; i < 2; i++) await send(benchPrompt(o.promptTokens, o.prefixShare, common, -1 - i));
  for (
    let c = nextConcurrency(steps, { start: o.startConcurrency, max: o.maxConcurrency, resolution: o.resolution });
    c !== undefined;
    c = nextConcurrency(steps, { start: o.startConcurrency, max: o.maxConcurrency, resolution: o.resolution })
  ) {
    const total = Math.max(o.minRequests, c * o.requestsPerSlot);
    const level = async (again: boolean): Promise<StepResult> => {
      hooks.onStart?.(c, total, o.prefixShare, again);
      const { samples, wallMs, readings } = await runStep(c, total, (i) => send(benchPrompt(o.promptTokens, o.prefixShare, common, i)), hooks.sample);
      const s = summarizeStep(c, samples, wallMs, readings, o.slo);
      hooks.onStep?.(s, o.prefixShare);
      return s;
    };
    // A stall of the machine (or of anything on the path) can break one run of a level that has the
    // capacity; it cannot make a level without it pass. So a break is believed when it repeats.
    const first = await level(false);
    steps.push(first.meetsSlo || o.confirmBreaks === false ? first : { ...(await level(true)), firstRunBroke: first.breaks });
  }
  steps.sort((a, b) => a.concurrency - b.concurrency);
  const max = maxConcurrencyAtSlo(steps);
  return { prefixShare: o.prefixShare, steps, maxConcurrencyAtSlo: max, atSlo: steps.find((s) => s.concurrency === max) };
}

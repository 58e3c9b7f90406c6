/**
 * sim-engine throughput benchmark (issue 2).
 *
 *  1. Requests/s with zero-latency settings (--prefill-tps 0 --decode-tps 0):
 *     autocannon against one real sim-engine process, non-streaming and
 *     streaming chat, short and longer outputs.
 *  2. Many concurrent timed streams (--decode-tps 20): are tokens delivered at
 *     the simulated rate when 1000 streams share one engine process (the
 *     router benchmark's load split over three engines is ~333 each)?
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/sim-engine-throughput.ts          # full
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/sim-engine-throughput.ts --quick  # smoke
 *   options: --seconds N  --connections N  --streams N
 */
import { Agent, request } from 'undici';
import { spawnRole, type SpawnedRole } from '@llmgw/testing';

interface CannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
// autocannon ships no type declarations; this is the part used here.
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<CannonResult>;

const quick = process.argv.includes('--quick');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const SECONDS = Number(arg('seconds') ?? (quick ? 2 : 10));
const CONNECTIONS = Number(arg('connections') ?? (quick ? 32 : 100));
const STREAMS = Number(arg('streams') ?? (quick ? 100 : 1000));

const chat = (maxTokens: number, stream: boolean): string =>
  JSON.stringify({
    model: 'sim',
    messages: [{ role: 'user', content: 'Say something about the gateway, please.' }],
    max_tokens: maxTokens,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  });

async function cannon(url: string, name: string | undefined, body: string, seconds = SECONDS): Promise<void> {
  const r = await autocannon({
    url: `${url}/v1/chat/completions`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: CONNECTIONS,
    duration: seconds,
  });
  if (name === undefined) return; // warm-up
  const bad = r.non2xx + r.errors + r.timeouts;
  console.log(
    `${name.padEnd(34)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   errors ${bad}`,
  );
}

const pct = (xs: number[], p: number): string => {
  if (xs.length === 0) return 'n/a';
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(0);
};

async function streams(url: string, n: number, tokens: number, tps: number): Promise<void> {
  const agent = new Agent({ connections: n + 10, keepAliveTimeout: 30_000 });
  const body = JSON.stringify({ model: 'sim', messages: [{ role: 'user', content: 'stream please' }], max_tokens: tokens, stream: true });
  let errors = 0;
  let bytes = 0;
  const first: number[] = [];
  const gen: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: n }, async () => {
      const s = performance.now();
      try {
        const res = await request(`${url}/v1/chat/completions`, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher: agent });
        if (res.statusCode !== 200) errors++;
        let f = 0;
        for await (const c of res.body) {
          if (!f) f = performance.now();
          bytes += (c as Buffer).length;
        }
        first.push(f - s);
        gen.push(performance.now() - f);
      } catch {
        errors++;
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  await agent.close();
  const ideal = ((tokens - 1) / tps) * 1000;
  console.log(
    `${n} concurrent streams × ${tokens} tokens at ${tps} tok/s: wall ${wall.toFixed(2)} s, ${(bytes / wall / 1024).toFixed(0)} KiB/s; ` +
      `first byte p50 ${pct(first, 0.5)} / p99 ${pct(first, 0.99)} ms; first→last p50 ${pct(gen, 0.5)} / p99 ${pct(gen, 0.99)} ms (ideal ${ideal.toFixed(0)}); errors ${errors}`,
  );
}

async function main(): Promise<void> {
  let role: SpawnedRole | undefined;
  try {
    console.log(`sim-engine throughput${quick ? ' (quick)' : ''}: ${SECONDS} s per case, ${CONNECTIONS} connections`);
    role = await spawnRole('sim-engine', [
      '--port',
      '0',
      '--model',
      'sim',
      '--prefill-tps',
      '0',
      '--decode-tps',
      '0',
      '--max-num-seqs',
      '1024',
      '--log-level',
      'warn',
    ]);
    await cannon(role.url, undefined, chat(4, false), 1); // JIT warm-up, not reported
    await cannon(role.url, 'chat, max_tokens 1', chat(1, false));
    await cannon(role.url, 'chat, max_tokens 16', chat(16, false));
    await cannon(role.url, 'chat stream, max_tokens 16', chat(16, true));
    await role.stop();
    role = await spawnRole('sim-engine', [
      '--port',
      '0',
      '--model',
      'sim',
      '--decode-tps',
      '20',
      '--batch-contention',
      '0',
      '--max-num-seqs',
      String(STREAMS),
      '--log-level',
      'warn',
    ]);
    await streams(role.url, STREAMS, quick ? 20 : 100, 20);
  } finally {
    await role?.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});

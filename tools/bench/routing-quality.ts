/**
 * Routing-quality harness (issue 12, plan §7.5): how much of the prompt the
 * engines serve from their prefix caches under each routing policy, and what
 * it costs in TTFT and load spread.
 *
 * Four sim-engines with small prefix caches (Llama 3 tokenizer, publishing
 * KV events), a workload with real structure: groups of conversations that
 * share long system prompts, each conversation several turns long, more
 * distinct prefixes live at once than one engine's cache holds. Policies:
 * round robin, session affinity (tier 0), approximate tree (tier 1, trees
 * shared over Redis), precise KV index (tier 2); each with 1 router and with
 * 4 routers behind round robin (request i goes to router i mod 4, so the
 * turns of one conversation alternate routers). Hit rate comes from the
 * engines' own counters (vllm:prefix_cache_hits_total / queries_total).
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/routing-quality.ts          # full
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/routing-quality.ts --quick  # smoke
 *   options: --conversations N --concurrency N --turns N --groups N --cache-blocks N --policies rr,session,tier1,tier2 --routers 1,4
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { blockHashes, chunkHashes, llama3ChatTokens, preloadLlama3 } from '@llmgw/prefix';
import { spawnRole, type SpawnedRole } from '@llmgw/testing';

const quick = process.argv.includes('--quick');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const CONVERSATIONS = Number(arg('conversations') ?? (quick ? 12 : 48));
const CONCURRENCY = Number(arg('concurrency') ?? (quick ? 8 : 16));
const TURNS = Number(arg('turns') ?? (quick ? 4 : 8));
const GROUPS = Number(arg('groups') ?? (quick ? 8 : 16));
const CACHE_BLOCKS = Number(arg('cache-blocks') ?? 300);
const POLICIES = (arg('policies') ?? 'rr,session,tier1,tier2').split(',') as Policy[];
const ROUTER_COUNTS = (arg('routers') ?? '1,4').split(',').map(Number);
const ENGINES = 4;
const HASH_SEED = '11';
const MODEL = 'llama';

type Policy = 'rr' | 'session' | 'tier1' | 'tier2';

const PROFILES: Record<Policy, Record<string, unknown>> = {
  rr: { scorers: { inflight: 1 }, picker: { type: 'round-robin' } },
  session: { scorers: { session: 3, queue: 1, kv: 1, inflight: 1 }, picker: { type: 'max-score' } },
  tier1: { scorers: { prefix: 3, queue: 1, kv: 1, inflight: 1 }, picker: { type: 'max-score' } },
  tier2: { scorers: { prefix: 3, queue: 1, kv: 1, inflight: 1 }, picker: { type: 'max-score' } },
};

const WORDS = 'cache block router engine prefix batch queue latency stream request replica node fabric memory kernel tensor layer attention decode prefill schedule admit score pick filter budget tenant usage'.split(' ');
function text(seed: number, words: number): string {
  let a = seed >>> 0;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    a = (Math.imul(a ^ (a >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    out.push(WORDS[a % WORDS.length]);
  }
  return out.join(' ');
}

interface Sample {
  ttftMs: number;
  replica: string;
  decision: string;
  ok: boolean;
}

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function engineCounters(engines: SpawnedRole[]): Promise<{ hits: number; queries: number }> {
  let hits = 0;
  let queries = 0;
  for (const e of engines) {
    const t = await (await fetch(`${e.url}/metrics`)).text();
    const v = (name: string): number => {
      const m = new RegExp(`^${name.replace(/:/g, '\\:')}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(t);
      return m ? Number(m[1]) : 0;
    };
    hits += v('vllm:prefix_cache_hits_total');
    queries += v('vllm:prefix_cache_queries_total');
  }
  return { hits, queries };
}

/** One streamed chat request; TTFT = until the first content chunk. */
async function chat(agent: Agent, url: string, messages: Array<{ role: string; content: string }>, session: string): Promise<Sample & { reply: string }> {
  const t0 = performance.now();
  const res = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-id': session },
    body: JSON.stringify({ model: MODEL, messages, max_tokens: 16, stream: true }),
    dispatcher: agent,
  });
  let ttftMs = -1;
  let buf = '';
  for await (const chunk of res.body) {
    buf += chunk.toString();
    if (ttftMs < 0 && /"content":"[^"]/.test(buf)) ttftMs = performance.now() - t0;
  }
  let reply = '';
  for (const m of buf.matchAll(/"content":"((?:[^"\\]|\\.)*)"/g)) reply += JSON.parse(`"${m[1]}"`);
  return {
    ttftMs,
    reply,
    replica: String(res.headers['x-llmgw-replica'] ?? ''),
    decision: String(res.headers['x-llmgw-cache-decision'] ?? ''),
    ok: res.statusCode === 200,
  };
}

async function runWorkload(routers: SpawnedRole[]): Promise<Sample[]> {
  const agent = new Agent({ connections: 64 });
  const samples: Sample[] = [];
  let next = 0;
  let rr = 0;
  const systems = Array.from({ length: GROUPS }, (_, g) => `You are assistant ${g}. ${text(1000 + g, 420)}`);
  const conversation = async (c: number): Promise<void> => {
    const messages = [{ role: 'system', content: systems[c % GROUPS] }];
    for (let t = 0; t < TURNS; t++) {
      messages.push({ role: 'user', content: `Question ${t} of conversation ${c}: ${text(c * 100 + t, 36)}` });
      const r = await chat(agent, routers[rr++ % routers.length].url, messages, `conv-${c}`);
      samples.push(r);
      messages.push({ role: 'assistant', content: r.reply });
    }
  };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CONVERSATIONS) await conversation(next++);
    }),
  );
  await agent.close();
  return samples;
}

/** What the router pays per request to key it: tier 1 (chunk hashes of the text) and tier 2 (tokenize + block hashes). */
async function keyingCost(): Promise<string> {
  const t0 = performance.now();
  preloadLlama3();
  const load = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 0));
  const lines = [`tokenizer load: ${(load / 1000).toFixed(1)} s (once, at router start)`, '', '| prompt chars | tier 1 µs | tier 2 ms (tokenize + hash) | blocks |', '|---|---|---|---|'];
  for (const chars of [1000, 4000, 16000]) {
    const messages = [{ role: 'system', content: text(7, Math.round(chars / 6.5)) }, { role: 'user', content: 'and?' }];
    const rendered = messages.map((m) => `${m.role}\x1f${m.content}\x1e`).join('');
    const n = 20;
    let t = performance.now();
    for (let i = 0; i < n * 10; i++) chunkHashes(rendered + i, 64);
    const tier1 = ((performance.now() - t) / (n * 10)) * 1000;
    t = performance.now();
    let blocks = 0;
    for (let i = 0; i < n; i++) blocks = blockHashes(llama3ChatTokens([...messages, { role: 'user', content: String(i) }]), { blockSize: 16, hashSeed: HASH_SEED }).length;
    const tier2 = (performance.now() - t) / n;
    lines.push(`| ${rendered.length} | ${tier1.toFixed(1)} | ${tier2.toFixed(2)} | ${blocks} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const cost = await keyingCost();
  process.stderr.write(`${cost}\n`);
  const engineArgs = [
    '--port', '0', '--model', MODEL, '--tokenizer', 'llama3', '--hash-seed', HASH_SEED,
    '--num-gpu-blocks', '2048', '--prefix-cache-blocks', String(CACHE_BLOCKS), '--max-num-seqs', '64',
    '--prefill-tps', '5000', '--decode-tps', '400', '--log-level', 'warn',
    '--kv-events-config', JSON.stringify({ enable_kv_cache_events: true, endpoint: 'tcp://127.0.0.1:0', replay_endpoint: 'tcp://127.0.0.1:0' }),
  ];
  process.stderr.write(`starting ${ENGINES} sim-engines (Llama 3 tokenizer, ${CACHE_BLOCKS}-block prefix caches)…\n`);
  const engines = await Promise.all(Array.from({ length: ENGINES }, () => spawnRole('sim-engine', engineArgs, { timeoutMs: 180_000 })));
  const kv = engines.map((e) => {
    const rec = e.output().map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((r) => r.msg === 'listening');
    return rec.kv_events as { endpoint: string; replay_endpoint: string };
  });
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-rq-'));
  const rows: string[] = [];
  const results: Record<string, { hit: number; p50: number; p99: number; spread: number }> = {};
  try {
    for (const policy of POLICIES) {
      for (const n of ROUTER_COUNTS) {
        for (const e of engines) await fetch(`${e.url}/reset_prefix_cache`, { method: 'POST' });
        const cfgPath = join(dir, `${policy}-${n}.yaml`);
        writeFileSync(
          cfgPath,
          JSON.stringify({
            log_level: 'warn',
            scrape_interval: '500ms',
            default_profile: 'bench',
            profiles: { bench: PROFILES[policy] },
            prefix: {
              approx_tree: { enabled: policy === 'tier1' || policy === 'tier2', share: { redis_url: 'redis://127.0.0.1:6379', key_prefix: `bench:${randomUUID()}:` } },
              kv_events: { enabled: policy === 'tier2', hash_seed: HASH_SEED },
            },
            endpoints: engines.map((e, i) => ({ name: `e${i}`, url: e.url, model: MODEL, kv_events: kv[i] })),
          }),
        );
        const routers = await Promise.all(Array.from({ length: n }, () => spawnRole('router', ['--config', cfgPath, '--port', '0', '--admin-port', '0'], { timeoutMs: 180_000, keepOutput: false })));
        try {
          // Let every router connect its subscriptions and shares before traffic.
          await new Promise((r) => setTimeout(r, 1500));
          const before = await engineCounters(engines);
          const t0 = performance.now();
          const samples = await runWorkload(routers);
          const secs = (performance.now() - t0) / 1000;
          const after = await engineCounters(engines);
          const hit = (after.hits - before.hits) / Math.max(1, after.queries - before.queries);
          const ttft = samples.filter((s) => s.ok && s.ttftMs >= 0).map((s) => s.ttftMs);
          const per = new Map<string, number>();
          for (const s of samples) per.set(s.replica, (per.get(s.replica) ?? 0) + 1);
          const counts = engines.map((_, i) => per.get(`e${i}`) ?? 0);
          const spread = Math.max(...counts) / (samples.length / ENGINES);
          const errors = samples.filter((s) => !s.ok).length;
          const decisions = new Map<string, number>();
          for (const s of samples) decisions.set(s.decision, (decisions.get(s.decision) ?? 0) + 1);
          results[`${policy}/${n}`] = { hit, p50: pct(ttft, 50), p99: pct(ttft, 99), spread };
          rows.push(
            `| ${policy} | ${n} | ${(hit * 100).toFixed(1)} % | ${pct(ttft, 50).toFixed(1)} | ${pct(ttft, 99).toFixed(1)} | ${counts.join(' / ')} (max ${spread.toFixed(2)}× mean) | ${errors} | ${[...decisions].map(([d, k]) => `${d || '—'} ${k}`).join(', ')} | ${secs.toFixed(1)} |`,
          );
          process.stderr.write(`${rows[rows.length - 1]}\n`);
        } finally {
          await Promise.all(routers.map((r) => r.stop()));
        }
      }
    }
  } finally {
    await Promise.all(engines.map((e) => e.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
  const requests = CONVERSATIONS * TURNS;
  process.stdout.write(
    `\nrouting quality: ${ENGINES} sim-engines × ${CACHE_BLOCKS}-block prefix caches; ${CONVERSATIONS} conversations × ${TURNS} turns (${requests} requests per run), ${CONCURRENCY} at a time, ${GROUPS} shared system prompts\n\n` +
      '| policy | routers | engine prefix hit rate | TTFT p50 ms | TTFT p99 ms | requests per engine | errors | decisions | run s |\n|---|---|---|---|---|---|---|---|---|\n' +
      rows.join('\n') +
      '\n',
  );
  process.stdout.write(`\nkeying cost per request (this process):\n\n${cost}\n`);
  const g = (k: string) => results[k];
  const check = (label: string, ok: boolean | undefined): void => {
    process.stdout.write(`${ok === undefined ? 'n/a ' : ok ? 'MET ' : 'NOT MET'}  ${label}\n`);
  };
  process.stdout.write('\ngoals:\n');
  const rr1 = g('rr/1');
  const t1 = g('tier1/1');
  const t2 = g('tier2/1');
  check(`round robin < 30 % (${rr1 ? (rr1.hit * 100).toFixed(1) : '?'} %) and tier 1 ≥ 85 % (${t1 ? (t1.hit * 100).toFixed(1) : '?'} %)`, rr1 && t1 ? rr1.hit < 0.3 && t1.hit >= 0.85 : undefined);
  check('tier 2 ≥ tier 1 + 5 points', t1 && t2 ? t2.hit >= t1.hit + 0.05 : undefined);
  for (const tier of ['tier1', 'tier2']) {
    const a = g(`${tier}/1`);
    const b = g(`${tier}/4`);
    check(`${tier}: 4 routers lose ≤ 2 points against 1`, a && b ? a.hit - b.hit <= 0.02 : undefined);
    for (const n of ROUTER_COUNTS) {
      const r = g(`rr/${n}`);
      const t = g(`${tier}/${n}`);
      check(`${tier} with ${n} router(s): TTFT p99 no worse than round robin's`, r && t ? t.p99 <= r.p99 : undefined);
    }
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});

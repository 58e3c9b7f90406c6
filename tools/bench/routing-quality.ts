/**
 * Routing-quality harness (issue 12, docs/prefix.md): how much of the prompt the
 * engines serve from their prefix caches under each routing policy, and what
 * it costs in TTFT and load spread.
 *
 * Eight sim-engines with small prefix caches (Llama 3 tokenizer, publishing
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
 *   options: --conversations N --concurrency N --turns N --groups N --system-words N --question-words N
 *            --zipf S --cache-blocks N --engines N --reset-every N --restart-routers-every N --buffer-steps N
 *            --balance-abs N --pending-window MS --share-down --repeat N --policies rr,session,tier1,tier2
 *            --routers 1,4 --configs rr/1,tier1/4 (exact pairs) --json
 *
 * `--reset-every N` empties one engine's prefix cache (POST /reset_prefix_cache:
 * vLLM's AllBlocksCleared, what a restarted engine looks like to the index)
 * after every N completed requests, engines in turn. `--restart-routers-every N`
 * replaces one router (in turn) after every N completed requests, as a rolling
 * deploy does: the new one starts with an empty tree and joins the KV event
 * streams late (`--buffer-steps`: the engines' replay buffer, vLLM's
 * buffer_steps); traffic moves to it once it is ready and the old one is
 * stopped gracefully. `--repeat N` runs every
 * (policy, routers) configuration N times, interleaved round by round, so a
 * change in the machine's background load hits every policy alike; the table
 * gives medians, and TTFT p99 also as a ratio to round robin's p99 in the same
 * round (same router count).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import Redis from 'ioredis';
import { Agent, request } from 'undici';
import { blockHashes, chunkHashes, llama3ChatTokens, preloadLlama3 } from '@llmgw/prefix';
import { spawnRole, type SpawnedRole } from '@llmgw/testing';

const quick = process.argv.includes('--quick');
/** Also print the summary as one JSON line at the end (`{"rr/1": {hit, ceiling, p99ratio}, …}`, percentages), for the CI test; skips the keying-cost table. */
const JSON_OUT = process.argv.includes('--json');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const CONVERSATIONS = Number(arg('conversations') ?? (quick ? 12 : 48));
const CONCURRENCY = Number(arg('concurrency') ?? (quick ? 8 : 16));
const TURNS = Number(arg('turns') ?? (quick ? 4 : 12));
const GROUPS = Number(arg('groups') ?? (quick ? 8 : 24));
const SYSTEM_WORDS = Number(arg('system-words') ?? 300);
const QUESTION_WORDS = Number(arg('question-words') ?? 36);
/** Popularity of the groups: 0 = conversation c belongs to group c mod groups; s > 0 = Zipf(s) (group k drawn with weight 1/(k+1)^s). */
const ZIPF = Number(arg('zipf') ?? 0);
/** prefix.approx_tree.balance_abs_threshold for tiers 1 and 2 (the router's default when absent). */
const BALANCE_ABS = arg('balance-abs');
const CACHE_BLOCKS = Number(arg('cache-blocks') ?? 200);
const RESET_EVERY = Number(arg('reset-every') ?? 0);
const ROUTER_RESTART_EVERY = Number(arg('restart-routers-every') ?? 0);
const BUFFER_STEPS = Number(arg('buffer-steps') ?? 10_000);
/** prefix.kv_events.pending_window for tier 2 (the router's default when absent). */
const PENDING_WINDOW = arg('pending-window');
/**
 * The routers' Redis is down (ARCHITECTURE: "Redis lost → single-router
 * behaviour"): the tree share points at a port nothing listens on, so each
 * router's tree holds only what that router sent; the KV index does not need
 * Redis (each router hears the engines' events directly).
 */
const SHARE_DOWN = process.argv.includes('--share-down');
const SHARE_URL = SHARE_DOWN ? 'redis://127.0.0.1:1' : 'redis://127.0.0.1:6379';
const REPEAT = Number(arg('repeat') ?? 1);
const POLICIES = (arg('policies') ?? 'rr,session,tier1,tier2').split(',') as Policy[];
const ROUTER_COUNTS = (arg('routers') ?? '1,4').split(',').map(Number);
const ENGINES = Number(arg('engines') ?? 8);
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

const zipfCdf = ((): number[] => {
  const w = Array.from({ length: GROUPS }, (_, k) => 1 / (k + 1) ** ZIPF);
  const total = w.reduce((a, b) => a + b, 0);
  let acc = 0;
  return w.map((x) => (acc += x / total));
})();
/** The group (shared system prompt) of conversation c: the same for every policy and round. */
function groupOf(c: number): number {
  if (ZIPF <= 0) return c % GROUPS;
  let a = (c * 0x9e3779b1 + 0x7f4a7c15) >>> 0;
  a = (Math.imul(a ^ (a >>> 16), 0x85ebca6b) ^ Math.imul(a ^ (a >>> 13), 0xc2b2ae35)) >>> 0;
  const u = a / 2 ** 32;
  const k = zipfCdf.findIndex((x) => u < x);
  return k < 0 ? GROUPS - 1 : k;
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
async function chat(agent: Agent, url: string, messages: readonly { role: string; content: string }[], session: string): Promise<Sample & { reply: string }> {
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

interface RouterSet {
  list: SpawnedRole[];
  /** Starts a router of this configuration (ready: listening and, with a tree share, subscribed). */
  start(extra: number): Promise<SpawnedRole>;
}

type Message = { role: string; content: string };

/**
 * The best hit rate any routing could get on the prompts of one run, in the
 * engines' own terms: every engine caching every prompt block ever computed
 * (no eviction, each prefix everywhere). Request i can hit only blocks some
 * earlier request's prompt computed (the sim-engine caches prompt blocks, as
 * vLLM does for a finished prefill), and never its last token (at most
 * floor((len − 1) / 16) blocks, as the engine counts). Hits / prompt tokens.
 */
function ceilingOf(sent: readonly Message[][]): number {
  const seen = new Set<bigint>();
  let hits = 0;
  let tokens = 0;
  for (const messages of sent) {
    const ids = llama3ChatTokens(messages);
    const hs = blockHashes(ids, { blockSize: 16, hashSeed: HASH_SEED });
    const max = Math.min(hs.length, Math.floor((ids.length - 1) / 16));
    let k = 0;
    while (k < max && seen.has(hs[k])) k++;
    hits += k * 16;
    tokens += ids.length;
    for (const h of hs) seen.add(h);
  }
  return hits / Math.max(1, tokens);
}

async function runWorkload(routers: RouterSet, engines: SpawnedRole[]): Promise<{ samples: Sample[]; resets: number; restarts: number; sent: Message[][] }> {
  const agent = new Agent({ connections: 64 });
  const samples: Sample[] = [];
  /** Every request's messages in the order they were sent (for the ceiling). */
  const sent: Message[][] = [];
  let next = 0;
  let rr = 0;
  let resets = 0;
  let restarts = 0;
  let replacing: Promise<void> | undefined;
  const resetting: Promise<unknown>[] = [];
  const replace = async (k: number): Promise<void> => {
    const fresh = await routers.start(1);
    const old = routers.list[k];
    routers.list[k] = fresh;
    await old.stop();
  };
  const systems = Array.from({ length: GROUPS }, (_, g) => `You are assistant ${g}. ${text(1000 + g, SYSTEM_WORDS)}`);
  const conversation = async (c: number): Promise<void> => {
    const messages: Message[] = [{ role: 'system', content: systems[groupOf(c)] }];
    for (let t = 0; t < TURNS; t++) {
      messages.push({ role: 'user', content: `Question ${t} of conversation ${c}: ${text(c * 100 + t, QUESTION_WORDS)}` });
      sent.push([...messages]);
      const r = await chat(agent, routers.list[rr++ % routers.list.length].url, messages, `conv-${c}`);
      samples.push(r);
      messages.push({ role: 'assistant', content: r.reply });
      if (RESET_EVERY > 0 && samples.length % RESET_EVERY === 0) {
        // An engine restarts: its prefix cache is empty (the KV index hears AllBlocksCleared; the tree does not).
        const e = engines[resets++ % engines.length];
        resetting.push(fetch(`${e.url}/reset_prefix_cache`, { method: 'POST' }));
      }
      if (ROUTER_RESTART_EVERY > 0 && samples.length % ROUTER_RESTART_EVERY === 0 && !replacing) {
        // A rolling deploy: one router at a time is replaced by a fresh one.
        replacing = replace(restarts++ % routers.list.length).finally(() => (replacing = undefined));
      }
    }
  };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CONVERSATIONS) await conversation(next++);
    }),
  );
  await Promise.all(resetting);
  await replacing;
  await agent.close();
  return { samples, resets, restarts, sent };
}

/** The router's own view after a run: KV index replica states, tree share counters. */
async function routerView(r: SpawnedRole): Promise<{ kv: Record<string, number>; share: Record<string, number> }> {
  const t = await (await fetch(`${r.urls.admin}/metrics`)).text();
  const kv: Record<string, number> = {};
  const share: Record<string, number> = {};
  for (const m of t.matchAll(/^llmgw_prefix_kv_replicas\{[^}]*state="(\w+)"[^}]*\} (\S+)$/gm)) kv[m[1]] = (kv[m[1]] ?? 0) + Number(m[2]);
  for (const m of t.matchAll(/^llmgw_prefix_share_messages_total\{[^}]*direction="(\w+)"[^}]*\} (\S+)$/gm)) share[m[1]] = (share[m[1]] ?? 0) + Number(m[2]);
  return { kv, share };
}

/** Waits until `n` routers are subscribed to the tree-share channel (each router subscribes after it listens). */
async function waitForShare(channel: string, n: number, timeoutMs: number): Promise<void> {
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const [, subs] = (await redis.pubsub('NUMSUB', channel)) as [string, number];
      if (Number(subs) >= n) return;
      if (Date.now() > until) throw new Error(`only ${subs} of ${n} routers subscribed to ${channel} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    redis.disconnect();
  }
}

/** Waits until a tier-2 router's KV index is synced with every engine (it joins each through a replay at start). */
async function waitForKvSync(r: SpawnedRole, engines: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { kv } = await routerView(r);
    if ((kv.synced ?? 0) >= engines) return;
    if (Date.now() > until) {
      process.stderr.write(`warning: router ${r.url}: KV index ${JSON.stringify(kv)} after ${timeoutMs} ms; going on\n`);
      return;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** The median; with an even count, the mean of the middle two. */
function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * What the router pays per request to key it: tier 1 (chunk hashes of the
 * text) and tier 2 (tokenize + block hashes). Tier 2 twice: a prompt whose
 * messages were all seen before but the last (a conversation's next turn: the
 * router's span cache holds them), and one never seen (every message tokenized).
 */
async function keyingCost(): Promise<string> {
  const t0 = performance.now();
  preloadLlama3();
  const load = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 0));
  const lines = [
    `tokenizer load: ${(load / 1000).toFixed(1)} s (once, at router start)`,
    '',
    '| prompt chars | tier 1 µs | tier 2 ms, next turn (earlier messages cached) | tier 2 ms, all messages new | blocks |',
    '|---|---|---|---|---|',
  ];
  for (const chars of [1000, 4000, 16000]) {
    const messages = [{ role: 'system', content: text(7, Math.round(chars / 6.5)) }, { role: 'user', content: 'and?' }];
    const rendered = messages.map((m) => `${m.role}\x1f${m.content}\x1e`).join('');
    const n = 20;
    let t = performance.now();
    for (let i = 0; i < n * 10; i++) chunkHashes(rendered + i, 64);
    const tier1 = ((performance.now() - t) / (n * 10)) * 1000;
    const opts = { blockSize: 16, hashSeed: HASH_SEED };
    let blocks = blockHashes(llama3ChatTokens(messages), opts).length;
    t = performance.now();
    for (let i = 0; i < n; i++) blocks = blockHashes(llama3ChatTokens([...messages, { role: 'user', content: String(i) }]), opts).length;
    const warm = (performance.now() - t) / n;
    t = performance.now();
    for (let i = 0; i < n; i++) blockHashes(llama3ChatTokens([{ role: 'system', content: `${i} ${messages[0].content}` }, ...messages.slice(1)]), opts);
    const cold = (performance.now() - t) / n;
    lines.push(`| ${rendered.length} | ${tier1.toFixed(1)} | ${warm.toFixed(2)} | ${cold.toFixed(2)} | ${blocks} |`);
  }
  return lines.join('\n');
}

interface RunResult {
  hit: number;
  /** The best any routing could do on this run's prompts (ceilingOf). */
  ceiling: number;
  p50: number;
  p99: number;
  counts: number[];
  errors: number;
  decisions: Map<string, number>;
  secs: number;
  resets: number;
  restarts: number;
  kv: string;
}

const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

async function main(): Promise<void> {
  const loadStart = load();
  const cost = JSON_OUT ? '' : await keyingCost();
  if (cost) process.stderr.write(`${cost}\n`);
  const engineArgs = [
    '--port', '0', '--model', MODEL, '--tokenizer', 'llama3', '--hash-seed', HASH_SEED,
    '--num-gpu-blocks', '2048', '--prefix-cache-blocks', String(CACHE_BLOCKS), '--max-num-seqs', '64',
    '--prefill-tps', '5000', '--decode-tps', '400', '--log-level', 'warn',
    '--kv-events-config', JSON.stringify({ enable_kv_cache_events: true, endpoint: 'tcp://127.0.0.1:0', replay_endpoint: 'tcp://127.0.0.1:0', buffer_steps: BUFFER_STEPS }),
  ];
  process.stderr.write(`starting ${ENGINES} sim-engines (Llama 3 tokenizer, ${CACHE_BLOCKS}-block prefix caches)…\n`);
  const engines = await Promise.all(Array.from({ length: ENGINES }, () => spawnRole('sim-engine', engineArgs, { timeoutMs: 600_000 })));
  const kv = engines.map((e) => {
    const rec = e.output().map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((r) => r.msg === 'listening');
    return rec.kv_events as { endpoint: string; replay_endpoint: string };
  });
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-rq-'));
  const runs = new Map<string, RunResult[]>();
  // --configs rr/1,tier1/2 picks exact (policy, routers) pairs instead of every policy × every router count.
  const configs = arg('configs')
    ? arg('configs')!.split(',').map((c) => ({ policy: c.split('/')[0] as Policy, n: Number(c.split('/')[1]) }))
    : POLICIES.flatMap((policy) => ROUTER_COUNTS.map((n) => ({ policy, n })));
  try {
    for (let round = 0; round < REPEAT; round++) {
      for (const { policy, n } of configs) {
        for (const e of engines) await fetch(`${e.url}/reset_prefix_cache`, { method: 'POST' });
        const cfgPath = join(dir, `${policy}-${n}.yaml`);
        const keyPrefix = `bench:${randomUUID()}:`;
        const tree = policy === 'tier1' || policy === 'tier2';
        writeFileSync(
          cfgPath,
          JSON.stringify({
            log_level: 'warn',
            scrape_interval: '500ms',
            default_profile: 'bench',
            profiles: { bench: PROFILES[policy] },
            prefix: {
              approx_tree: {
                enabled: tree,
                ...(BALANCE_ABS !== undefined ? { balance_abs_threshold: Number(BALANCE_ABS) } : {}),
                share: { redis_url: SHARE_URL, key_prefix: keyPrefix },
              },
              kv_events: { enabled: policy === 'tier2', hash_seed: HASH_SEED, ...(PENDING_WINDOW !== undefined ? { pending_window: Number(PENDING_WINDOW) } : {}) },
            },
            endpoints: engines.map((e, i) => ({ name: `e${i}`, url: e.url, model: MODEL, kv_events: kv[i] })),
          }),
        );
        // A router listens once it is ready to route (a tier-2 router loads the tokenizer first); the
        // tree share subscribes just after, so wait for every router to be on the channel before traffic.
        const t0 = performance.now();
        const spawnRouter = (): Promise<SpawnedRole> => spawnRole('router', ['--config', cfgPath, '--port', '0', '--admin-port', '0'], { timeoutMs: 600_000, keepOutput: false });
        const set: RouterSet = {
          list: await Promise.all(Array.from({ length: n }, spawnRouter)),
          async start(extra) {
            const r = await spawnRouter();
            if (tree && !SHARE_DOWN) await waitForShare(`${keyPrefix}prefix:v1:inserts`, set.list.length + extra, 60_000);
            if (policy === 'tier2') await waitForKvSync(r, ENGINES, 120_000);
            return r;
          },
        };
        try {
          if (tree && n > 1 && !SHARE_DOWN) await waitForShare(`${keyPrefix}prefix:v1:inserts`, n, 60_000);
          if (policy === 'tier2') await Promise.all(set.list.map((r) => waitForKvSync(r, ENGINES, 120_000)));
          // ZMQ subscriptions connect in the background; a batch missed meanwhile is replayed.
          await new Promise((r) => setTimeout(r, 500));
          const startS = (performance.now() - t0) / 1000;
          const before = await engineCounters(engines);
          const t1 = performance.now();
          const { samples, resets, restarts, sent } = await runWorkload(set, engines);
          const secs = (performance.now() - t1) / 1000;
          const after = await engineCounters(engines);
          const hit = (after.hits - before.hits) / Math.max(1, after.queries - before.queries);
          const ttft = samples.filter((s) => s.ok && s.ttftMs >= 0).map((s) => s.ttftMs);
          const per = new Map<string, number>();
          for (const s of samples) per.set(s.replica, (per.get(s.replica) ?? 0) + 1);
          const counts = engines.map((_, i) => per.get(`e${i}`) ?? 0);
          const decisions = new Map<string, number>();
          for (const s of samples) decisions.set(s.decision, (decisions.get(s.decision) ?? 0) + 1);
          const views = policy === 'tier2' ? await Promise.all(set.list.map(routerView)) : [];
          const kvStates = views.map((v) => Object.entries(v.kv).filter(([, k]) => k > 0).map(([st, k]) => `${st} ${k}`).join('+')).join(', ');
          const res: RunResult = { hit, ceiling: ceilingOf(sent), p50: pct(ttft, 50), p99: pct(ttft, 99), counts, errors: samples.filter((s) => !s.ok).length, decisions, secs, resets, restarts, kv: kvStates };
          runs.set(`${policy}/${n}`, [...(runs.get(`${policy}/${n}`) ?? []), res]);
          process.stderr.write(
            `round ${round + 1}/${REPEAT} ${policy} × ${n}: hit ${(hit * 100).toFixed(1)} % (ceiling ${(res.ceiling * 100).toFixed(1)} %), TTFT p50 ${res.p50.toFixed(0)} p99 ${res.p99.toFixed(0)} ms, per engine ${counts.join('/')}, ` +
              `${[...decisions].map(([d, k]) => `${d || '—'} ${k}`).join(', ')}${kvStates ? `, kv index ${kvStates}` : ''}, ${resets} engine resets, ${restarts} router restarts; routers ready in ${startS.toFixed(1)} s, run ${secs.toFixed(1)} s, load ${load()}\n`,
          );
        } finally {
          await Promise.all(set.list.map((r) => r.stop()));
        }
      }
    }
  } finally {
    await Promise.all(engines.map((e) => e.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
  const loadEnd = load();

  // Per round, each run's TTFT p99 over round robin's with the same router count.
  const p99Ratio = (policy: string, n: number): number => {
    const mine = runs.get(`${policy}/${n}`) ?? [];
    const rr = runs.get(`rr/${n}`) ?? [];
    return median(mine.map((r, i) => (rr[i] ? r.p99 / rr[i].p99 : NaN)).filter((x) => !Number.isNaN(x)));
  };
  const rows: string[] = [];
  const summary: Record<string, { hit: number; p99ratio: number; ceiling: number }> = {};
  for (const { policy, n } of configs) {
    const rs = runs.get(`${policy}/${n}`) ?? [];
    if (rs.length === 0) continue;
    const hits = rs.map((r) => r.hit * 100);
    const decisions = new Map<string, number>();
    for (const r of rs) for (const [d, k] of r.decisions) decisions.set(d, (decisions.get(d) ?? 0) + k);
    const counts = engines.map((_, i) => rs.reduce((a, r) => a + r.counts[i], 0));
    const spread = Math.max(...counts) / (counts.reduce((a, b) => a + b, 0) / ENGINES);
    const ratio = p99Ratio(policy, n);
    const ceiling = median(rs.map((r) => r.ceiling * 100));
    summary[`${policy}/${n}`] = { hit: median(hits), p99ratio: ratio, ceiling };
    rows.push(
      `| ${policy} | ${n} | ${median(hits).toFixed(1)} %${rs.length > 1 ? ` (${Math.min(...hits).toFixed(1)}–${Math.max(...hits).toFixed(1)})` : ''} | ${ceiling.toFixed(1)} % | ${median(rs.map((r) => r.p50)).toFixed(0)} | ${median(rs.map((r) => r.p99)).toFixed(0)} | ${Number.isNaN(ratio) ? '—' : `${ratio.toFixed(2)}×`} | ${counts.join(' / ')} (max ${spread.toFixed(2)}× mean) | ${rs.reduce((a, r) => a + r.errors, 0)} | ${[...decisions].map(([d, k]) => `${d || '—'} ${k}`).join(', ')} |`,
    );
  }
  const requests = CONVERSATIONS * TURNS;
  process.stdout.write(
    `\nrouting quality: ${ENGINES} sim-engines × ${CACHE_BLOCKS}-block prefix caches; ${CONVERSATIONS} conversations × ${TURNS} turns (${requests} requests per run), ${CONCURRENCY} at a time, ${GROUPS} shared system prompts of ${SYSTEM_WORDS} words${ZIPF > 0 ? ` (popularity Zipf ${ZIPF})` : ''}, ${QUESTION_WORDS}-word questions` +
      `${BALANCE_ABS !== undefined ? `; balance_abs_threshold ${BALANCE_ABS}` : ''}${SHARE_DOWN ? "; the routers' Redis is down (no tree share)" : ''}${PENDING_WINDOW !== undefined ? `; pending_window ${PENDING_WINDOW} ms` : ''}${RESET_EVERY > 0 ? `; one engine's cache emptied (restart) every ${RESET_EVERY} requests` : ''}${ROUTER_RESTART_EVERY > 0 ? `; one router replaced (rolling restart) every ${ROUTER_RESTART_EVERY} requests, engines' replay buffer ${BUFFER_STEPS} steps` : ''}; ${REPEAT} interleaved round(s), medians; load average ${loadStart} at start, ${loadEnd} at end\n\n` +
      '| policy | routers | engine prefix hit rate | ceiling (any routing) | TTFT p50 ms | TTFT p99 ms | p99 / round robin p99 | requests per engine (all rounds) | errors | decisions (all rounds) |\n|---|---|---|---|---|---|---|---|---|---|\n' +
      rows.join('\n') +
      '\n',
  );
  if (cost) process.stdout.write(`\nkeying cost per request (this process):\n\n${cost}\n`);
  const g = (k: string) => summary[k];
  const check = (label: string, ok: boolean | undefined): void => {
    process.stdout.write(`${ok === undefined ? 'n/a ' : ok ? 'MET ' : 'NOT MET'}  ${label}\n`);
  };
  const pc = (x: { hit: number } | undefined): string => (x ? `${x.hit.toFixed(1)} %` : '?');
  process.stdout.write('\ngoals:\n');
  const rr1 = g('rr/1');
  const t1 = g('tier1/1');
  check(`round robin < 30 % (${pc(rr1)}) and tier 1 ≥ 85 % (${pc(t1)})`, rr1 && t1 ? rr1.hit < 30 && t1.hit >= 85 : undefined);
  for (const n of ROUTER_COUNTS) {
    const a = g(`tier1/${n}`);
    const b = g(`tier2/${n}`);
    check(`tier 2 ≥ tier 1 + 5 points with ${n} router(s) (${pc(b)} vs ${pc(a)}; the best any routing can do on these prompts: ${b ? `${b.ceiling.toFixed(1)} %` : '?'})`, a && b ? b.hit >= a.hit + 5 : undefined);
  }
  for (const tier of ['tier1', 'tier2']) {
    const a = g(`${tier}/1`);
    const b = g(`${tier}/4`);
    check(`${tier}: 4 routers lose ≤ 2 points against 1 (${pc(a)} → ${pc(b)})`, a && b ? a.hit - b.hit <= 2 : undefined);
    for (const n of ROUTER_COUNTS) {
      const t = g(`${tier}/${n}`);
      check(`${tier} with ${n} router(s): TTFT p99 no worse than round robin's (${t && !Number.isNaN(t.p99ratio) ? `${t.p99ratio.toFixed(2)}×` : '?'})`, t && !Number.isNaN(t.p99ratio) ? t.p99ratio <= 1 : undefined);
    }
  }
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});

import { Agent, request } from 'undici';
import { blockHashes, llama3ChatTokens } from '@llmgw/prefix';
import { type SpawnedRole } from '@llmgw/testing';
import {
  CONCURRENCY,
  CONVERSATIONS,
  GROUPS,
  HASH_SEED,
  MODEL,
  QUESTION_WORDS,
  RESET_EVERY,
  ROUTER_RESTART_EVERY,
  SYSTEM_WORDS,
  TURNS,
  ZIPF,
} from './routing-quality-options';

const WORDS =
  'cache block router engine prefix batch queue latency stream request replica node fabric memory kernel tensor layer attention decode prefill schedule admit score pick filter budget tenant usage'.split(
    ' ',
  );
export function text(seed: number, words: number): string {
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

export function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export async function engineCounters(engines: SpawnedRole[]): Promise<{ hits: number; queries: number }> {
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

export interface RouterSet {
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
export function ceilingOf(sent: readonly Message[][]): number {
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

export async function runWorkload(
  routers: RouterSet,
  engines: SpawnedRole[],
): Promise<{ samples: Sample[]; resets: number; restarts: number; sent: Message[][] }> {
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

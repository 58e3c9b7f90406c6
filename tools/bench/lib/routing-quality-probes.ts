import Redis from 'ioredis';
import { blockHashes, chunkHashes, llama3ChatTokens, preloadLlama3 } from '@llmgw/prefix';
import { type SpawnedRole } from '@llmgw/testing';
import { HASH_SEED } from './routing-quality-options';
import { text } from './routing-quality-workload';

export interface RouterView {
  kv: Record<string, number>;
  share: Record<string, number>;
  /** Tier-2 keying: fallbacks by reason, span cache hit/miss, tokenizer workers ready, and the two histograms' sums and counts. */
  fallbacks: Record<string, number>;
  spans: Record<string, number>;
  workersReady: number;
  tokenize: { sum: number; count: number };
  wait: { sum: number; count: number };
}

export async function routerView(r: SpawnedRole): Promise<RouterView> {
  const t = await (await fetch(`${r.urls.admin}/metrics`)).text();
  const by = (metric: string, label: string): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const m of t.matchAll(new RegExp(`^${metric}\\{[^}]*${label}="(\\w+)"[^}]*\\} (\\S+)$`, 'gm'))) out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
    return out;
  };
  const one = (metric: string): number => {
    let n = 0;
    for (const m of t.matchAll(new RegExp(`^${metric}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) n += Number(m[1]);
    return n;
  };
  return {
    kv: by('llmgw_prefix_kv_replicas', 'state'),
    share: by('llmgw_prefix_share_messages_total', 'direction'),
    fallbacks: by('llmgw_prefix_tokenize_fallbacks_total', 'reason'),
    spans: by('llmgw_prefix_tokenize_spans_total', 'result'),
    workersReady: one('llmgw_prefix_tokenize_workers_ready'),
    tokenize: { sum: one('llmgw_prefix_tokenize_seconds_sum'), count: one('llmgw_prefix_tokenize_seconds_count') },
    wait: { sum: one('llmgw_prefix_tokenize_wait_seconds_sum'), count: one('llmgw_prefix_tokenize_wait_seconds_count') },
  };
}

/** One line on the tier-2 routers' keying over a run: mean keying and wait ms, fallbacks, the span cache's hit ratio. */
export function keyingSummary(views: RouterView[]): string {
  if (views.length === 0) return '';
  const sum = (f: (v: RouterView) => number): number => views.reduce((a, v) => a + f(v), 0);
  const keyMs =
    (sum((v) => v.tokenize.sum) /
      Math.max(
        1,
        sum((v) => v.tokenize.count),
      )) *
    1000;
  const waits = sum((v) => v.wait.count);
  const fb = new Map<string, number>();
  for (const v of views) for (const [k, n] of Object.entries(v.fallbacks)) if (n > 0) fb.set(k, (fb.get(k) ?? 0) + n);
  const hits = sum((v) => v.spans.hit ?? 0);
  const misses = sum((v) => v.spans.miss ?? 0);
  return (
    `; keying ${keyMs.toFixed(2)} ms mean over ${sum((v) => v.tokenize.count)} requests` +
    (waits ? `, wait ${((sum((v) => v.wait.sum) / waits) * 1000).toFixed(2)} ms mean` : '') +
    `, fallbacks ${fb.size ? [...fb].map(([k, n]) => `${k} ${n}`).join(' ') : 'none'}` +
    `, span cache ${hits} hits / ${misses} misses`
  );
}

/** Waits until `n` routers are subscribed to the tree-share channel (each router subscribes after it listens). */
export async function waitForShare(channel: string, n: number, timeoutMs: number): Promise<void> {
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

/**
 * Waits until a tier-2 router's KV index is synced with every engine (it joins each through a replay at start)
 * and its tokenizer worker, if it has one, has loaded.
 */
export async function waitForKvSync(r: SpawnedRole, engines: number, timeoutMs: number, workers = 0): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { kv, workersReady } = await routerView(r);
    if ((kv.synced ?? 0) >= engines && workersReady >= workers) return;
    if (Date.now() > until) {
      process.stderr.write(`warning: router ${r.url}: KV index ${JSON.stringify(kv)}, ${workersReady} tokenizer workers after ${timeoutMs} ms; going on\n`);
      return;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** The median; with an even count, the mean of the middle two. */
export function median(xs: number[]): number {
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
export async function keyingCost(): Promise<string> {
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
    const messages = [
      { role: 'system', content: text(7, Math.round(chars / 6.5)) },
      { role: 'user', content: 'and?' },
    ];
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

export interface RunResult {
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

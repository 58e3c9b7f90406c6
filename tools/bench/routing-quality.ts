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
 *            --balance-abs N --balance-fair F --no-load-share --pending-window MS --share-down --repeat N --policies rr,session,tier1,tier2,tier2i
 *            --tokenize-timeout MS
 *            --routers 1,4 --configs rr/1,tier1/4 (exact pairs) --rounds N (= --repeat) --json
 *
 * Policy `tier2i` is tier 2 keyed on the router's event loop (`tokenize_workers: 0`), `tier2` on its
 * tokenizer worker (the default). Policy `chat` configures no profile: the router's built-in `chat` (tier-0 session affinity on the
 * x-session-id every request carries, the tier-1 tree behind it), what a client gets by default.
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
import { spawnRole, type SpawnedRole } from '@llmgw/testing';
import {
  BALANCE_ABS,
  BALANCE_FAIR,
  BUFFER_STEPS,
  CACHE_BLOCKS,
  CONCURRENCY,
  CONVERSATIONS,
  ENGINES,
  GROUPS,
  HASH_SEED,
  JSON_OUT,
  LOAD_SHARE,
  MODEL,
  PENDING_WINDOW,
  isTier2,
  POLICIES,
  PROFILES,
  TOKENIZE_TIMEOUT,
  type Policy,
  QUESTION_WORDS,
  REPEAT,
  RESET_EVERY,
  ROUTER_COUNTS,
  ROUTER_RESTART_EVERY,
  SHARE_DOWN,
  SHARE_URL,
  SYSTEM_WORDS,
  TURNS,
  ZIPF,
  arg,
} from './lib/routing-quality-options';
import { type RouterSet, ceilingOf, engineCounters, pct, runWorkload } from './lib/routing-quality-workload';
import { type RunResult, keyingCost, keyingSummary, median, routerView, waitForKvSync, waitForShare } from './lib/routing-quality-probes';

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const loadStart = load();
  const cost = JSON_OUT ? '' : await keyingCost();
  if (cost) process.stderr.write(`${cost}\n`);
  const engineArgs = [
    '--port',
    '0',
    '--model',
    MODEL,
    '--tokenizer',
    'llama3',
    '--hash-seed',
    HASH_SEED,
    '--num-gpu-blocks',
    '2048',
    '--prefix-cache-blocks',
    String(CACHE_BLOCKS),
    '--max-num-seqs',
    '64',
    '--prefill-tps',
    '5000',
    '--decode-tps',
    '400',
    '--log-level',
    'warn',
    '--kv-events-config',
    JSON.stringify({ enable_kv_cache_events: true, endpoint: 'tcp://127.0.0.1:0', replay_endpoint: 'tcp://127.0.0.1:0', buffer_steps: BUFFER_STEPS }),
  ];
  process.stderr.write(`starting ${ENGINES} sim-engines (Llama 3 tokenizer, ${CACHE_BLOCKS}-block prefix caches)…\n`);
  const engines = await Promise.all(Array.from({ length: ENGINES }, () => spawnRole('sim-engine', engineArgs, { timeoutMs: 600_000 })));
  const kv = engines.map((e) => {
    const rec = e
      .output()
      .map((l) => (l.startsWith('{') ? JSON.parse(l) : {}))
      .find((r) => r.msg === 'listening');
    return rec.kv_events as { endpoint: string; replay_endpoint: string };
  });
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-rq-'));
  const runs = new Map<string, RunResult[]>();
  // --configs rr/1,tier1/2 picks exact (policy, routers) pairs instead of every policy × every router count.
  const configs = arg('configs')
    ? arg('configs')!
        .split(',')
        .map((c) => ({ policy: c.split('/')[0] as Policy, n: Number(c.split('/')[1]) }))
    : POLICIES.flatMap((policy) => ROUTER_COUNTS.map((n) => ({ policy, n })));
  try {
    for (let round = 0; round < REPEAT; round++) {
      for (const { policy, n } of configs) {
        for (const e of engines) await fetch(`${e.url}/reset_prefix_cache`, { method: 'POST' });
        const cfgPath = join(dir, `${policy}-${n}.yaml`);
        const keyPrefix = `bench:${randomUUID()}:`;
        const tree = policy === 'tier1' || isTier2(policy) || policy === 'chat';
        const profile = PROFILES[policy];
        writeFileSync(
          cfgPath,
          JSON.stringify({
            log_level: 'warn',
            scrape_interval: '500ms',
            default_profile: profile ? 'bench' : 'chat',
            profiles: profile ? { bench: profile } : {},
            prefix: {
              approx_tree: {
                enabled: tree,
                ...(BALANCE_ABS !== undefined ? { balance_abs_threshold: Number(BALANCE_ABS) } : {}),
                ...(BALANCE_FAIR !== undefined ? { balance_fair_factor: Number(BALANCE_FAIR) } : {}),
                share: { redis_url: SHARE_URL, key_prefix: keyPrefix, load: LOAD_SHARE },
              },
              kv_events: {
                enabled: isTier2(policy),
                hash_seed: HASH_SEED,
                ...(policy === 'tier2i' ? { tokenize_workers: 0 } : {}),
                ...(TOKENIZE_TIMEOUT !== undefined ? { tokenize_timeout: Number(TOKENIZE_TIMEOUT) } : {}),
                ...(PENDING_WINDOW !== undefined ? { pending_window: Number(PENDING_WINDOW) } : {}),
              },
            },
            endpoints: engines.map((e, i) => ({ name: `e${i}`, url: e.url, model: MODEL, kv_events: kv[i] })),
          }),
        );
        // A router listens once it is ready to route (a tier-2 router loads the tokenizer first); the
        // tree share subscribes just after, so wait for every router to be on the channel before traffic.
        const t0 = performance.now();
        const spawnRouter = (): Promise<SpawnedRole> =>
          spawnRole('router', ['--config', cfgPath, '--port', '0', '--admin-port', '0'], { timeoutMs: 600_000, keepOutput: false });
        const set: RouterSet = {
          list: await Promise.all(Array.from({ length: n }, spawnRouter)),
          async start(extra) {
            const r = await spawnRouter();
            if (tree && !SHARE_DOWN) await waitForShare(`${keyPrefix}prefix:v1:inserts`, set.list.length + extra, 60_000);
            if (isTier2(policy)) await waitForKvSync(r, ENGINES, 120_000, policy === 'tier2' ? 1 : 0);
            return r;
          },
        };
        try {
          if (tree && n > 1 && !SHARE_DOWN) await waitForShare(`${keyPrefix}prefix:v1:inserts`, n, 60_000);
          const listenS = (performance.now() - t0) / 1000;
          if (isTier2(policy)) await Promise.all(set.list.map((r) => waitForKvSync(r, ENGINES, 120_000, policy === 'tier2' ? 1 : 0)));
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
          const views = isTier2(policy) ? await Promise.all(set.list.map(routerView)) : [];
          const keying = keyingSummary(views);
          const kvStates = views
            .map((v) =>
              Object.entries(v.kv)
                .filter(([, k]) => k > 0)
                .map(([st, k]) => `${st} ${k}`)
                .join('+'),
            )
            .join(', ');
          const res: RunResult = {
            hit,
            ceiling: ceilingOf(sent),
            p50: pct(ttft, 50),
            p99: pct(ttft, 99),
            counts,
            errors: samples.filter((s) => !s.ok).length,
            decisions,
            secs,
            resets,
            restarts,
            kv: kvStates,
          };
          runs.set(`${policy}/${n}`, [...(runs.get(`${policy}/${n}`) ?? []), res]);
          process.stderr.write(
            `round ${round + 1}/${REPEAT} ${policy} × ${n}: hit ${(hit * 100).toFixed(1)} % (ceiling ${(res.ceiling * 100).toFixed(1)} %), TTFT p50 ${res.p50.toFixed(0)} p99 ${res.p99.toFixed(0)} ms, per engine ${counts.join('/')}, ` +
              `${[...decisions].map(([d, k]) => `${d || '—'} ${k}`).join(', ')}${kvStates ? `, kv index ${kvStates}` : ''}${keying}, ${resets} engine resets, ${restarts} router restarts; routers listening in ${listenS.toFixed(1)} s, ready in ${startS.toFixed(1)} s, run ${secs.toFixed(1)} s, load ${load()}\n`,
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
  const p99Ratio = (policy: string, n: number): number => median(p99Ratios(policy, n));
  /** Every round's ratio, in round order (the goal is ≤ 1 in each, not only the median). */
  const p99Ratios = (policy: string, n: number): number[] => {
    const mine = runs.get(`${policy}/${n}`) ?? [];
    const rr = runs.get(`rr/${n}`) ?? [];
    return mine.map((r, i) => (rr[i] ? r.p99 / rr[i].p99 : NaN)).filter((x) => !Number.isNaN(x));
  };
  const perRound: string[] = [];
  const rows: string[] = [];
  const summary: Record<string, { hit: number; p99ratio: number; p99worst: number; ceiling: number }> = {};
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
    const ratios = p99Ratios(policy, n);
    summary[`${policy}/${n}`] = { hit: median(hits), p99ratio: ratio, p99worst: ratios.length ? Math.max(...ratios) : NaN, ceiling };
    if (policy !== 'rr' && ratios.length > 0) {
      perRound.push(
        `| ${policy} | ${n} | ${ratios.map((x) => `${x.toFixed(2)}×`).join(', ')} | ${rs.map((r) => (r.hit * 100).toFixed(1)).join(', ')} | ${ratios.filter((x) => x <= 1).length} of ${ratios.length} |`,
      );
    }
    rows.push(
      `| ${policy} | ${n} | ${median(hits).toFixed(1)} %${rs.length > 1 ? ` (${Math.min(...hits).toFixed(1)}–${Math.max(...hits).toFixed(1)})` : ''} | ${ceiling.toFixed(1)} % | ${median(rs.map((r) => r.p50)).toFixed(0)} | ${median(rs.map((r) => r.p99)).toFixed(0)} | ${Number.isNaN(ratio) ? '—' : `${ratio.toFixed(2)}×`} | ${counts.join(' / ')} (max ${spread.toFixed(2)}× mean) | ${rs.reduce((a, r) => a + r.errors, 0)} | ${[...decisions].map(([d, k]) => `${d || '—'} ${k}`).join(', ')} |`,
    );
  }
  const requests = CONVERSATIONS * TURNS;
  process.stdout.write(
    `\nrouting quality: ${ENGINES} sim-engines × ${CACHE_BLOCKS}-block prefix caches; ${CONVERSATIONS} conversations × ${TURNS} turns (${requests} requests per run), ${CONCURRENCY} at a time, ${GROUPS} shared system prompts of ${SYSTEM_WORDS} words${ZIPF > 0 ? ` (popularity Zipf ${ZIPF})` : ''}, ${QUESTION_WORDS}-word questions` +
      `${BALANCE_ABS !== undefined ? `; balance_abs_threshold ${BALANCE_ABS}` : ''}${BALANCE_FAIR !== undefined ? `; balance_fair_factor ${BALANCE_FAIR}` : ''}${LOAD_SHARE ? '' : '; no load share'}${SHARE_DOWN ? "; the routers' Redis is down (no tree share)" : ''}${PENDING_WINDOW !== undefined ? `; pending_window ${PENDING_WINDOW} ms` : ''}${RESET_EVERY > 0 ? `; one engine's cache emptied (restart) every ${RESET_EVERY} requests` : ''}${ROUTER_RESTART_EVERY > 0 ? `; one router replaced (rolling restart) every ${ROUTER_RESTART_EVERY} requests, engines' replay buffer ${BUFFER_STEPS} steps` : ''}; ${REPEAT} interleaved round(s), medians; load average ${loadStart} at start, ${loadEnd} at end\n\n` +
      '| policy | routers | engine prefix hit rate | ceiling (any routing) | TTFT p50 ms | TTFT p99 ms | p99 / round robin p99 | requests per engine (all rounds) | errors | decisions (all rounds) |\n|---|---|---|---|---|---|---|---|---|---|\n' +
      rows.join('\n') +
      '\n',
  );
  if (perRound.length > 0) {
    process.stdout.write(
      '\nper round (in round order):\n\n| policy | routers | TTFT p99 / round robin p99 | hit rate % | rounds with p99 ≤ round robin |\n|---|---|---|---|---|\n' +
        perRound.join('\n') +
        '\n',
    );
  }
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
    check(
      `tier 2 ≥ tier 1 + 5 points with ${n} router(s) (${pc(b)} vs ${pc(a)}; the best any routing can do on these prompts: ${b ? `${b.ceiling.toFixed(1)} %` : '?'})`,
      a && b ? b.hit >= a.hit + 5 : undefined,
    );
  }
  for (const tier of ['tier1', 'tier2']) {
    const a = g(`${tier}/1`);
    const b = g(`${tier}/4`);
    check(`${tier}: 4 routers lose ≤ 2 points against 1 (${pc(a)} → ${pc(b)})`, a && b ? a.hit - b.hit <= 2 : undefined);
    for (const n of ROUTER_COUNTS) {
      const t = g(`${tier}/${n}`);
      check(
        `${tier} with ${n} router(s): TTFT p99 no worse than round robin's (${t && !Number.isNaN(t.p99ratio) ? `${t.p99ratio.toFixed(2)}×` : '?'})`,
        t && !Number.isNaN(t.p99ratio) ? t.p99ratio <= 1 : undefined,
      );
      if (REPEAT > 1)
        check(
          `${tier} with ${n} router(s): TTFT p99 ≤ round robin's in every one of ${REPEAT} rounds (worst ${t && !Number.isNaN(t.p99worst) ? `${t.p99worst.toFixed(2)}×` : '?'})`,
          t && !Number.isNaN(t.p99worst) ? t.p99worst <= 1 : undefined,
        );
    }
  }
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});

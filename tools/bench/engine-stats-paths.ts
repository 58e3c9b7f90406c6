/**
 * The engine-stats question (docs/inventory.md, "Engine stats: one path"):
 * what each of the two ways of getting an engine's waiting/running numbers
 * to a routing or admission decision costs, and how old the numbers are at
 * the moment of the decision.
 *
 * - scrape path: every router (scrape_interval 2 s) and every admission
 *   instance (1 s) runs the real libs/endpoints Scraper against every engine;
 * - agent path: each engine's agent scrapes it once per stats_interval (2 s),
 *   inventory writes the record to Redis (real SET), and every router and
 *   admission instance reads the records from Redis on its own interval
 *   (real MGET) instead of scraping.
 *
 * Engines are small HTTP servers answering vLLM-style /metrics and counting
 * hits. Every 20 ms a "decision" samples, per reader and engine, the age of
 * the numbers it would use (now − the scrape time behind them).
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/engine-stats-paths.ts --routers 4 --admission 1 --engines 8 --seconds 20
 */
import { StaticEndpointSource, Scraper } from '@llmgw/endpoints';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}
const ROUTERS = arg('routers', 4);
const ADMISSION = arg('admission', 1);
const ENGINES = arg('engines', 8);
const SECONDS = arg('seconds', 20);
const ROUTER_MS = 2000;
const ADMISSION_MS = 1000;
const AGENT_MS = 2000;
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const METRICS = (n: number) => `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} ${n % 7}
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="m"} ${n % 3}
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="m"} 0.25
`;

function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function main(): Promise<void> {
  const hits = { scrapePath: 0, agentPath: 0 };
  let mode: keyof typeof hits = 'scrapePath';
  const servers: Server[] = [];
  const urls: string[] = [];
  for (let i = 0; i < ENGINES; i++) {
    let n = 0;
    const s = createServer((req, res) => {
      if (req.url === '/metrics') hits[mode]++;
      res.setHeader('content-type', 'text/plain');
      res.end(METRICS(n++));
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    servers.push(s);
    urls.push(`http://127.0.0.1:${(s.address() as AddressInfo).port}`);
  }
  const endpoints = urls.map((url, i) => ({ id: `e${i}`, url, model: 'm', engine: 'vllm' as const, pool: 'p', priority: 0, weight: 1, draining: false }));

  // ---- scrape path: R routers + A admission instances, each scraping every engine ----
  const readers = [...Array.from({ length: ROUTERS }, () => ROUTER_MS), ...Array.from({ length: ADMISSION }, () => ADMISSION_MS)];
  const scrapers = readers.map((ms) => new Scraper({ source: new StaticEndpointSource(endpoints), intervalMs: ms }));
  const agesScrape: number[] = [];
  await new Promise((r) => setTimeout(r, 3000)); // warm up: every loop has scraped once
  hits.scrapePath = 0;
  let t0 = Date.now();
  const sampleScrape = setInterval(() => {
    const now = Date.now();
    for (const sc of scrapers) for (const st of sc.states().values()) if (st.lastSuccessMs) agesScrape.push(now - st.lastSuccessMs);
  }, 20);
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  clearInterval(sampleScrape);
  const scrapeSecs = (Date.now() - t0) / 1000;
  await Promise.all(scrapers.map((s) => s.close()));

  // ---- agent path: one agent scrape per engine, Redis record, readers poll Redis ----
  mode = 'agentPath';
  const redis = new Redis(REDIS, { maxRetriesPerRequest: 1 });
  const prefix = `bench:estats:${randomBytes(4).toString('hex')}:`;
  const keys = endpoints.map((e) => `${prefix}${e.id}`);
  const agentTimers = endpoints.map((e, i) =>
    setInterval(
      async () => {
        const res = await fetch(`${e.url}/metrics`);
        await res.text();
        await redis.set(keys[i], JSON.stringify({ scrapedAtMs: Date.now() }), 'PX', 10_000);
      },
      AGENT_MS * (0.75 + Math.random() * 0.25),
    ),
  );
  const seen = readers.map(() => new Map<string, number>());
  let redisReads = 0;
  const readerTimers = readers.map((ms, r) =>
    setInterval(
      async () => {
        const vals = await redis.mget(...keys);
        redisReads++;
        vals.forEach((v, i) => v && seen[r].set(keys[i], (JSON.parse(v) as { scrapedAtMs: number }).scrapedAtMs));
      },
      ms * (0.75 + Math.random() * 0.25),
    ),
  );
  const agesAgent: number[] = [];
  await new Promise((r) => setTimeout(r, 3000));
  hits.agentPath = 0;
  redisReads = 0;
  t0 = Date.now();
  const sampleAgent = setInterval(() => {
    const now = Date.now();
    for (const m of seen) for (const at of m.values()) agesAgent.push(now - at);
  }, 20);
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  clearInterval(sampleAgent);
  const agentSecs = (Date.now() - t0) / 1000;
  for (const t of [...agentTimers, ...readerTimers]) clearInterval(t);
  await redis.del(...keys);
  redis.disconnect();
  for (const s of servers) s.close();

  const row = (name: string, perS: number, extra: string, ages: number[]) =>
    `| ${name} | ${perS.toFixed(1)} | ${(perS / ENGINES).toFixed(2)} | ${extra} | ${pct(ages, 50).toFixed(0)} | ${pct(ages, 95).toFixed(0)} | ${Math.max(...ages).toFixed(0)} |`;
  console.log(
    `routers=${ROUTERS} (every ${ROUTER_MS} ms), admission=${ADMISSION} (every ${ADMISSION_MS} ms), engines=${ENGINES}, agent stats_interval=${AGENT_MS} ms, ${SECONDS} s each`,
  );
  console.log('| path | engine /metrics GETs/s (all engines) | per engine | other load | age at decision p50 ms | p95 ms | max ms |');
  console.log('|---|---|---|---|---|---|---|');
  console.log(row('every router and admission scrapes', hits.scrapePath / scrapeSecs, '—', agesScrape));
  console.log(row('agent scrapes, readers read Redis', hits.agentPath / agentSecs, `${(redisReads / agentSecs).toFixed(1)} Redis MGET/s`, agesAgent));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);

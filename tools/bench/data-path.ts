/**
 * Issue 14's data-path bench: the router as a user runs it in production —
 * API keys (auth) with RPM/TPM limits, remote admission, the durable usage
 * record in Redis drained by accounting into Postgres — beside a plain nginx
 * reverse proxy over the same engines and a direct call to an engine, in one
 * run. Every process is real: sim-engines, admission, accounting and the
 * router via `llmgw <role>`, nginx from Debian's package.
 *
 *  1. steady open-loop load at each rate (short non-streamed completions,
 *     max_tokens 1, zero-latency engines): p50/p99 of direct, nginx and the
 *     router, and what each proxy adds over direct;
 *  2. load steps (low → high → low rate): p99 in the second after each step;
 *  3. saturation: the highest rate at which the router still keeps p99 under
 *     100 ms (the rate ladder of --ladder), and the same for nginx and the bare
 *     Node proxy (lib/bare-proxy.cjs: Node's HTTP server and undici alone);
 *  4. N concurrent streams through the router over 3 engines that can each run
 *     them all: errors and router peak RSS; then the same through the bare Node proxy.
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/data-path.ts            # full
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/data-path.ts --quick    # smoke
 *   options: --rates 200,500,1000 --seconds N --warmup N --streams N --stream-seconds N --stream-prompt-bytes N
 *            --variants off,tenancy,admission,durable (extra routers with part of it on); --baseline DIR
 *            (the everything-on router from another checkout too, e.g. a git worktree of an earlier commit)
 *            --mtls (a second admission + accounting serving mTLS with role checks, and a router
 *            calling both with its role certificate: measured beside the plaintext router)
 *            --ladder 1000,1500,2000 --skip steady,nginx,bare,steps,saturation,streams
 *            --stream-tps N (tokens per second of each stream; default 2)
 *            --undeclared-streams (the stream engines' endpoints declare no max_num_seqs: admission
 *            learns, the router's upstream pool is not sized from a declaration)
 *            --streams-admission off|remote (the stream router's admission; default remote)
 *            --streams-queue N (that admission's queue_capacity_per_band)
 *            --trace-step (the router every 100 ms around the upward step) --credit-max N (admission's credit_max)
 *            --trace-ladder [--trace-ladder-ms N] (the same for the first 2 s, or N ms, of each of the router's ladder rates)
 *            --trace-steady N (the same for the first N ms of each of the router's steady rates, warm-up included)
 *            --router-listen-sockets N (the measured routers' listen_sockets)
 *            --burst N [--burst-rate R] (N new clients connect at once into R req/s; with --variants socket, the
 *            router with one listening socket beside it)
 *            --cpu-prof DIR --alloc-prof DIR --gc-stats DIR --heap-snapshot DIR --router-node-options '…' (profiles of the measured routers)
 *            --router-unit-flags off (the measured routers without the Node flags of deploy/systemd/llmgw-router.service)
 *            --router-node-flags '…' (more Node flags for the measured routers, e.g. --optimize-for-size)
 *            --bare-spin-us N,… (one more bare proxy per N, burning N µs of CPU per request: a Node proxy at the router's cost)
 *            --idle-seconds N (CPU of the router and the services with no load, before the steady rates; default 5)
 */
import { createTestDatabase } from '@llmgw/db/testing';
import { findRepoRoot, routerUnitEnv, routerUnitFlags, spawnRole, type SpawnedRole } from '@llmgw/testing';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { gcStatsRequire, startBareProxies, startBareProxy, startNginx } from './lib/data-path-references';
import { burstLine, connectionBurst } from './lib/data-path-burst';
import { startMtlsRouter } from './lib/data-path-mtls';
import { runStreams, streamEngines } from './lib/data-path-streams';
import { viewLine, viewSnap, type ViewSnap } from './lib/router-view';
import { traceStep } from './lib/data-path-trace';
import { runLadders } from './lib/data-path-ladder';
import { behindRouter, idleLine, servicesCpu } from './lib/services-cpu';
import { phaseMachine } from './lib/machine-cpu';
import { arg, cpuPerRequest, failures, latencies, openLoopPhases, pct, procUsage } from './lib/open-loop';

const quick = process.argv.includes('--quick');
const RATES = (arg('rates') ?? (quick ? '200' : '200,500,1000')).split(',').map(Number);
const SECONDS = Number(arg('seconds') ?? (quick ? 2 : 10));
const WARMUP = Number(arg('warmup') ?? (quick ? 1 : 3));
const STREAMS = Number(arg('streams') ?? (quick ? 200 : 5000));
const STREAM_SECONDS = Number(arg('stream-seconds') ?? (quick ? 3 : 20));
/**
 * --stream-tps N: tokens per second of each stream (default 2). At 5000 streams and 2 tokens/s the
 * engines, the router and the load generator pass 10 000 chunks/s; on a shared 2-core machine that
 * alone starves the router of the CPU it needs to take the streams in, and fewer than half are ever open
 * at once. 0.5 keeps every stream open for the same time with a quarter of the chunks.
 */
const STREAM_TPS = Number(arg('stream-tps') ?? 2);
/** --stream-prompt-bytes N: each stream's prompt about N bytes long (default: one word), for the memory a long prompt costs per stream. */
const STREAM_PROMPT = 'go' + ' lorem'.repeat(Math.max(0, Math.floor((Number(arg('stream-prompt-bytes') ?? 0) - 2) / 6)));
/** --burst N: N new clients connect at once into steady load at --burst-rate (default 1000) req/s (lib/data-path-burst.ts); 0 = skipped. */
const BURST = Number(arg('burst') ?? 0);
const BURST_RATE = Number(arg('burst-rate') ?? 1000);
const LADDER = (arg('ladder') ?? (quick ? '300' : '1000,1500,2000,2500')).split(',').map(Number);
const SKIP = new Set((arg('skip') ?? '').split(',').filter(Boolean));
const MTLS = process.argv.includes('--mtls');
/** --trace-step: the router's state every 100 ms around the upward step (lib/data-path-trace.ts). */
const TRACE_STEP = process.argv.includes('--trace-step');
/** --trace-ladder: the same for the first 2 s (--trace-ladder-ms N: N ms) of each of the router's ladder rates. */
const TRACE_LADDER = process.argv.includes('--trace-ladder');
const TRACE_LADDER_MS = Number(arg('trace-ladder-ms') ?? 2000);
/** --trace-steady N: the same for the first N ms of each of the router's steady rates (its warm-up first). */
const TRACE_STEADY_MS = Number(arg('trace-steady') ?? 0);
/** --router-listen-sockets N: the measured routers' listen_sockets (the router's default when absent). */
const LISTEN_SOCKETS = arg('router-listen-sockets');
/** --heap-snapshot DIR: the stream router writes a heap snapshot into DIR half way through the streams (summarise with lib/heap-summary.ts). */
const HEAP_DIR = arg('heap-snapshot');
const HEAP_SNAPSHOT = HEAP_DIR !== undefined;
/** --credit-max N: the admission service's credit_max (default 4096; 256 gives the fixed credit before issue 23's sizing from demand). */
const CREDIT_MAX = arg('credit-max');
const UNDECLARED_STREAMS = process.argv.includes('--undeclared-streams');
/** --streams-admission off: the stream router runs without admission (remote by default). */
const STREAMS_ADMISSION = arg('streams-admission') ?? 'remote';
/** --streams-queue N: the stream admission service's queue_capacity_per_band (its default 2000). */
const STREAMS_QUEUE = arg('streams-queue');
const BODY = JSON.stringify({ model: 'sim', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 });
const QUIET = { keepOutput: false, timeoutMs: 180_000 };
/** --cpu-prof DIR, --alloc-prof DIR: each measured router's V8 CPU profile, and what it allocates (garbage included), written to DIR at exit (lib/cpu-profile.cjs, lib/alloc-profile.cjs). */
const CPU_PROF = arg('cpu-prof');
const BARE_SPIN_US = (arg('bare-spin-us') ?? '').split(',').filter(Boolean).map(Number);
const ALLOC_PROF = arg('alloc-prof');
/** --gc-stats DIR: every router's and the bare proxy's scavenges per 5 s window (lib/gc-stats.cjs; print with lib/gc-summary.ts). */
const GC_STATS = gcStatsRequire(arg('gc-stats'));
/** The Node flags and Environment= lines (MALLOC_ARENA_MAX) of deploy/systemd/llmgw-router.service (@llmgw/testing); --router-unit-flags off: none. */
const AS_UNIT = arg('router-unit-flags') !== 'off';
const ROUTER_UNIT_FLAGS: string[] = AS_UNIT ? routerUnitFlags() : [];
const ROUTER_UNIT_ENV: Record<string, string> = AS_UNIT ? routerUnitEnv() : {};
/** --router-node-options '…': NODE_OPTIONS of the measured routers only (e.g. --heapsnapshot-signal=SIGUSR2). */
const ROUTER_NODE_OPTIONS = [
  arg('router-node-options'),
  HEAP_DIR && `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${HEAP_DIR}`,
  CPU_PROF && `--require ${join(__dirname, 'lib', 'cpu-profile.cjs')}`,
  ALLOC_PROF && `--require ${join(__dirname, 'lib', 'alloc-profile.cjs')}`,
  GC_STATS,
]
  .filter(Boolean)
  .join(' ');
/** --router-node-flags '…': Node flags of the measured routers besides the unit's (any V8 flag, e.g. --optimize-for-size). */
const ROUTER_NODE_ARGS = [...ROUTER_UNIT_FLAGS, ...(arg('router-node-flags') ?? '').split(' ').filter(Boolean)];
const PROFILES = { LLMGW_CPU_PROF_DIR: CPU_PROF, LLMGW_ALLOC_PROF_DIR: ALLOC_PROF };
const ROUTER = { ...QUIET, nodeArgs: ROUTER_NODE_ARGS, env: { ...ROUTER_UNIT_ENV, NODE_OPTIONS: ROUTER_NODE_OPTIONS || undefined, ...PROFILES } };
/** The partial-configuration and mTLS routers: started as deployed, without the profiles (--gc-stats aside). */
const OTHER_ROUTER = { ...QUIET, nodeArgs: ROUTER_UNIT_FLAGS, env: { ...ROUTER_UNIT_ENV, NODE_OPTIONS: GC_STATS || undefined } };

/** `llmgw ctl … --json` against accounting; the parsed answer. */
function ctl(accounting: string, ...args: string[]): any {
  const r = spawnSync(process.execPath, [join(findRepoRoot(), 'bin/llmgw.cjs'), 'ctl', '--accounting', accounting, ...args, '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ctl ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return JSON.parse(r.stdout);
}

const f = (x: number, w = 9) => (Number.isFinite(x) ? x.toFixed(2) : '—').padStart(w);

async function main(): Promise<void> {
  // Every process here runs on this Node; llmgw supports 22 and later (package.json engines).
  if (Number(process.versions.node.split('.')[0]) < 22)
    console.log(`WARNING: Node ${process.version} is not a Node llmgw runs on (>= 22): these figures are not the product's`);
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-datapath-'));
  const prefix = `bench:${randomUUID().slice(0, 8)}:`;
  const procs: SpawnedRole[] = [];
  let nginx: ChildProcess | undefined;
  const bareProcs: ChildProcess[] = [];
  const db = await createTestDatabase('llmgw_bench');
  try {
    const engineArgs = ['--port', '0', '--model', 'sim', '--prefill-tps', '0', '--decode-tps', '0', '--max-num-seqs', '2000', '--log-level', 'info'];
    const direct = await spawnRole('sim-engine', engineArgs, QUIET);
    const behind = await Promise.all([0, 1, 2].map(() => spawnRole('sim-engine', engineArgs, QUIET)));
    procs.push(direct, ...behind);
    // Each endpoint declares its engine's --max-num-seqs, as docs/configuration.md recommends.
    const endpoints = behind.map((e, i) => ({ name: `e${i}`, url: e.url, model: 'sim', max_num_seqs: 2000 }));

    const admissionCfg = join(dir, 'admission.yaml');
    writeFileSync(
      admissionCfg,
      JSON.stringify({ listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', endpoints, ...(CREDIT_MAX ? { credit_max: Number(CREDIT_MAX) } : {}) }),
    );
    const [admission, accounting] = await Promise.all([
      spawnRole('admission', ['--config', admissionCfg], QUIET),
      spawnRole(
        'accounting',
        ['--port', '0', '--admin-port', '0', '--database-url', db.url, '--redis-url', 'redis://127.0.0.1:6379', '--key-prefix', prefix, '--consumer', 'bench'],
        QUIET,
      ),
    ]);
    procs.push(admission, accounting);
    const acct = new URL(accounting.urls.grpc ?? accounting.url).host;
    ctl(acct, 'org', 'create', 'bench');
    ctl(acct, 'team', 'create', 'perf', '--org', 'bench');
    ctl(acct, 'project', 'create', 'load', '--team', 'perf', '--band', 'gold');
    const key = ctl(acct, 'key', 'create', '--project', 'load', '--name', 'bench-key').secret as string;
    // Limits on and checked on every request, never reached.
    ctl(acct, 'limit', 'set', 'key', 'bench-key', '--rpm', '10000000', '--tpm', '1000000000');
    ctl(acct, 'limit', 'set', 'team', 'perf', '--rpm', '10000000');

    const routerCfg = join(dir, 'router.yaml');
    const routerConfig = (o: { tenancy?: boolean; admission?: boolean; durable?: boolean; sockets?: number } = {}) => ({
      ...(o.sockets || LISTEN_SOCKETS ? { listen_sockets: o.sockets ?? Number(LISTEN_SOCKETS) } : {}),
      ...(o.tenancy !== false
        ? { tenancy: { enabled: true, accounting_address: acct, redis_url: 'redis://127.0.0.1:6379', key_prefix: prefix, durable_usage: o.durable !== false } }
        : {}),
      ...(o.admission !== false ? { admission: { mode: 'remote', address: new URL(admission.url).host } } : {}),
      endpoints,
    });
    writeFileSync(routerCfg, JSON.stringify(routerConfig()));
    const router = await spawnRole('router', ['--config', routerCfg, '--port', '0', '--admin-port', '0'], ROUTER);
    procs.push(router);
    // Partial configurations, to show where the cost of "everything on" goes (--variants).
    const VARIANTS: Record<string, { tenancy?: boolean; admission?: boolean; durable?: boolean; sockets?: number }> = {
      'router (all off)': { tenancy: false, admission: false },
      'router (tenancy only)': { admission: false },
      'router (admission only)': { tenancy: false },
      'router (no durable hold)': { durable: false },
      'router (one listen socket)': { sockets: 1 },
    };
    const variants: Array<{ name: string; url: string; pid: number; needsKey: boolean }> = [];
    for (const v of (arg('variants') ?? '').split(',').filter(Boolean)) {
      const name = Object.keys(VARIANTS).find((k) => k.includes(v));
      if (!name) throw new Error(`--variants: unknown ${v} (off, tenancy, admission, durable, socket)`);
      const file = join(dir, `router-${v}.yaml`);
      writeFileSync(file, JSON.stringify(routerConfig(VARIANTS[name])));
      const r = await spawnRole('router', ['--config', file, '--port', '0', '--admin-port', '0'], OTHER_ROUTER);
      procs.push(r);
      variants.push({ name, url: r.url, pid: r.pid, needsKey: VARIANTS[name].tenancy !== false });
    }
    // --baseline DIR: the everything-on router also from another checkout (an earlier commit, its own dist/), measured beside this one.
    if (arg('baseline')) {
      const r = await spawnRole('router', ['--config', routerCfg, '--port', '0', '--admin-port', '0'], { ...OTHER_ROUTER, repoRoot: arg('baseline') });
      procs.push(r);
      variants.push({ name: 'router (baseline)', url: r.url, pid: r.pid, needsKey: true });
    }
    // --mtls: the same stack with every gRPC link over mTLS with role checks (docs/security.md), beside the plaintext one.
    if (MTLS) variants.push(await startMtlsRouter({ dir, endpoints, databaseUrl: db.url, prefix, base: routerConfig(), procs, router: OTHER_ROUTER }));
    const ng = SKIP.has('nginx')
      ? undefined
      : await startNginx(
          dir,
          behind.map((e) => e.url),
        );
    nginx = ng?.proc;
    const nginxUrl = ng?.url;
    const bares = SKIP.has('bare')
      ? []
      : await startBareProxies(
          behind.map((e) => e.url),
          BARE_SPIN_US,
        );
    bareProcs.push(...bares.map((b) => b.proc));
    const auth = { authorization: `Bearer ${key}` };
    const probe = await request(`${router.url}/v1/chat/completions`, { method: 'POST', body: BODY, headers: { ...auth, 'content-type': 'application/json' } });
    const probeText = await probe.body.text();
    if (probe.statusCode !== 200) throw new Error(`router refused the bench key: ${probe.statusCode} ${probeText}`);
    console.log(
      `router ${router.url} (pid ${router.pid}, node ${process.version} ${[...ROUTER_UNIT_FLAGS, ...Object.entries(ROUTER_UNIT_ENV).map(([k, v]) => `${k}=${v}`)].join(' ') || 'without flags'}): auth + limits (accounting ${acct}, Redis prefix ${prefix}), admission remote ${new URL(admission.url).host}, durable usage on`,
    );
    console.log(
      `nginx ${nginxUrl ?? '(skipped)'} (1 worker, keep-alive upstream); direct engine ${direct.url}; 3 zero-latency sim-engines behind both proxies`,
    );

    const targets: Array<{ name: string; url: string; pid?: number; headers?: Record<string, string> }> = [
      { name: 'direct', url: direct.url },
      ...(nginxUrl ? [{ name: 'nginx', url: nginxUrl, pid: ng?.workerPid }] : []),
      ...bares.map((b) => ({ name: b.name, url: b.url, pid: b.proc.pid })),
      { name: 'router', url: router.url, pid: router.pid, headers: auth },
      ...variants.map(({ needsKey, ...v }) => ({ ...v, headers: needsKey ? auth : undefined })),
    ];

    // What the processes burn with no request at all: a fixed cost shows up as CPU per request that falls as the rate rises.
    const IDLE = Number(arg('idle-seconds') ?? (quick ? 1 : 5));
    if (IDLE > 0)
      console.log(
        `\n0. ${await idleLine([{ name: 'router', pid: router.pid }, ...variants, { name: 'admission', pid: admission.pid }, { name: 'accounting', pid: accounting.pid }], IDLE)}`,
      );

    const services = behindRouter(admission.pid, accounting.pid);
    const routerTrace = () => ({
      adminUrl: router.urls.admin!,
      pid: router.pid,
      port: Number(new URL(router.url).port),
      admissionAdminUrl: admission.urls.admin,
    });
    console.log(`\n1. steady load, short non-streamed completions (${SECONDS}s per rate after ${WARMUP}s warm-up; added = minus direct)`);
    console.log('rate/s  target                    p50 ms    p99 ms  added p50  added p99  failed  proxy CPU per request');
    for (const rate of SKIP.has('steady') ? [] : RATES) {
      let ref: number[] = [];
      for (const t of targets) {
        const pid = t.pid;
        const u0 = pid ? procUsage(pid) : undefined;
        // The router's own timings of the requests after the warm-up (lib/router-view.ts).
        const svc = t.name === 'router' ? servicesCpu(services) : undefined;
        const machine = pid
          ? phaseMachine({ name: t.name, pids: [pid] }, [
              { name: 'engines', pids: behind.map((e) => e.pid) },
              { name: 'services', pids: services.map((p) => p.pid) },
            ])
          : undefined;
        const viewFrom = t.name === 'router' ? new Promise<ViewSnap>((r) => setTimeout(() => r(viewSnap(router.urls.admin!)), WARMUP * 1000)) : undefined;
        const steady = () => openLoopPhases(t.url, [{ rate, seconds: WARMUP + SECONDS }], { body: BODY, headers: t.headers });
        const s = TRACE_STEADY_MS > 0 && t.name === 'router' ? await traceStep({ ...routerTrace(), fromMs: 0, toMs: TRACE_STEADY_MS }, steady) : await steady();
        // CPU time per request: unlike latency, it hardly depends on what else runs on the machine.
        const cpu = cpuPerRequest(pid, u0, s.length);
        const lat = latencies(s, WARMUP * 1000);
        if (t.name === 'direct') ref = lat;
        console.log(
          `${String(rate).padStart(6)}  ${t.name.padEnd(24)} ${f(pct(lat, 50))} ${f(pct(lat, 99))} ${f(pct(lat, 50) - pct(ref, 50), 10)} ${f(pct(lat, 99) - pct(ref, 99), 10)} ${String(failures(s)).padStart(7)}  ${cpu}`,
        );
        if (viewFrom) console.log(viewLine(await viewFrom, await viewSnap(router.urls.admin!)));
        if (svc) console.log(svc(s.length));
        if (machine) console.log(machine(s.length));
      }
    }

    const metric = async (name: string) => {
      const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(await (await fetch(`${router.urls.admin}/metrics`)).text());
      return m ? Number(m[1]) : 0;
    };
    let served = RATES.reduce((n, r) => n + r * (WARMUP + SECONDS), 0);
    console.log(
      `durable usage hold: ${await metric('llmgw_usage_durable_hold_timeouts_total')} of ${served} responses released by the 5 s timeout before their record was in the ledger`,
    );

    if (!SKIP.has('steps')) {
      const lo = quick ? 100 : 300;
      const hi = quick ? 300 : 1000;
      const step = quick ? 2 : 5;
      console.log(`\n2. load steps ${lo} → ${hi} → ${lo} req/s, ${step}s each: p99 ms in the first second after each step / rest of the phase`);
      for (const t of targets.filter((x) => x.name === 'nginx' || x.name === 'router')) {
        const phases = [
          { rate: lo, seconds: step },
          { rate: hi, seconds: step },
          { rate: lo, seconds: step },
        ];
        const run = () => openLoopPhases(t.url, phases, { body: BODY, headers: t.headers });
        const traced = TRACE_STEP && t.name === 'router';
        const s = traced ? await traceStep({ ...routerTrace(), fromMs: step * 1000 - 500, toMs: step * 1000 + 2000 }, run) : await run();
        const w = (a: number, b: number) => f(pct(latencies(s, a * 1000, b * 1000), 99), 8);
        console.log(
          `  ${t.name.padEnd(7)} up: ${w(step, step + 1)} / ${w(step + 1, 2 * step)}   down: ${w(2 * step, 2 * step + 1)} / ${w(2 * step + 1, 3 * step)}   failed ${failures(s)}`,
        );
      }
    }

    if (!SKIP.has('saturation')) {
      // The same ladder for nginx and the bare Node proxy: what this machine (engines and load generator included) allows at all.
      const climbers = targets.filter((x) => x.name === 'router' || x.name === 'router (baseline)' || x.name === 'nginx' || x.name.startsWith('node (bare'));
      console.log(`\n3. saturation (p99 under 100 ms, no failure): rate ladder ${LADDER.join(', ')} req/s, ${quick ? 2 : 6}s each`);
      await runLadders(climbers, {
        rates: LADDER,
        seconds: quick ? 2 : 6,
        body: BODY,
        engines: behind.map((e) => e.pid),
        services: services.map((p) => p.pid),
        trace: TRACE_LADDER ? { ...routerTrace(), toMs: TRACE_LADDER_MS } : undefined,
      });
    }

    if (BURST > 0) {
      console.log(`\n3b. ${BURST} new clients connect at once into ${BURST_RATE} req/s of steady load (each opens a connection and sends one request)`);
      for (const t of targets.filter((x) => x.name !== 'direct' && !x.name.includes('mTLS'))) {
        console.log(
          burstLine(t.name, await connectionBurst(t.url, { body: BODY, headers: t.headers, rate: BURST_RATE, seconds: 6, burst: BURST, atMs: 3000 })),
        );
      }
    }
    if (!SKIP.has('saturation')) served += LADDER.reduce((n, r) => n + r * (quick ? 2 : 6), 0);
    console.log(
      `durable usage hold after the steps and the ladder: ${await metric('llmgw_usage_durable_hold_timeouts_total')} timeouts (of about ${served} responses)`,
    );

    if (!SKIP.has('streams')) {
      console.log(
        `\n4. ${STREAMS} concurrent streams through the router (everything on) for ~${STREAM_SECONDS}s, ${STREAM_TPS} tokens/s each, engine slots ${UNDECLARED_STREAMS ? 'undeclared' : 'declared'}, admission ${STREAMS_ADMISSION}`,
      );
      const tps = STREAM_TPS;
      const slow = await streamEngines(STREAMS, STREAM_SECONDS, tps, QUIET);
      procs.push(...slow);
      const slowEndpoints = slow.map((e, i) => ({ name: `s${i}`, url: e.url, model: 'slow', ...(UNDECLARED_STREAMS ? {} : { max_num_seqs: STREAMS }) }));
      const streamAdmissionCfg = join(dir, 'admission-streams.yaml');
      writeFileSync(
        streamAdmissionCfg,
        JSON.stringify({
          listen: '127.0.0.1:0',
          admin_listen: '127.0.0.1:0',
          endpoints: slowEndpoints,
          ...(STREAMS_QUEUE ? { queue_capacity_per_band: Number(STREAMS_QUEUE) } : {}),
        }),
      );
      const streamAdmission = await spawnRole('admission', ['--config', streamAdmissionCfg], QUIET);
      procs.push(streamAdmission);
      const streamCfg = join(dir, 'router-streams.yaml');
      writeFileSync(
        streamCfg,
        JSON.stringify({
          ...routerConfig(),
          admission: STREAMS_ADMISSION === 'off' ? { mode: 'off' } : { mode: 'remote', address: new URL(streamAdmission.url).host },
          endpoints: slowEndpoints,
        }),
      );
      const streamRouter = await spawnRole('router', ['--config', streamCfg, '--port', '0', '--admin-port', '0'], ROUTER);
      procs.push(streamRouter);
      const body = JSON.stringify({
        model: 'slow',
        messages: [{ role: 'user', content: STREAM_PROMPT }],
        max_tokens: Math.max(1, Math.ceil(STREAM_SECONDS * tps)),
        stream: true,
      });
      const r = await runStreams({
        url: streamRouter.url,
        adminUrl: streamRouter.urls.admin!,
        pid: streamRouter.pid,
        streams: STREAMS,
        seconds: STREAM_SECONDS,
        body,
        headers: auth,
        heapSnapshot: HEAP_SNAPSHOT,
      });
      console.log(r.line);
      if (!SKIP.has('bare')) {
        // The same streams through the bare Node proxy over the same engines, with the router unit's Node flags and environment: Node's own cost per stream.
        const slowUrls = slow.map((e) => e.url);
        const ref = await startBareProxy(slowUrls, ROUTER_UNIT_FLAGS, ROUTER_UNIT_ENV);
        try {
          const b = await runStreams({ url: ref.url, pid: ref.proc.pid!, name: 'bare proxy', streams: STREAMS, seconds: STREAM_SECONDS, body, headers: {} });
          console.log(b.line);
        } finally {
          ref.proc.kill('SIGTERM');
        }
      }
    }
  } finally {
    if (nginx?.pid) {
      try {
        process.kill(-nginx.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
    for (const p of bareProcs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => p.stop()));
    await db.drop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

/**
 * Router-added latency with admission remote (issue 13), in one run:
 *
 *   off      — a router with admission off (the reference)
 *   before   — admission remote, every request an Acquire + Release round trip
 *              (`admission.credit_interval: 0`)
 *   after    — admission remote with credits (the default): while the pool is
 *              far below every ceiling the router admits on credit, no call
 *
 * Open-loop short non-streaming completions (max_tokens 1) at each rate, each
 * router in front of the same three zero-latency sim-engines, one admission
 * service. Prints p50/p99 per router and the latency added over `off`.
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/admission-overhead.ts               # 500 and 1000 req/s, 10 s each
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/admission-overhead.ts --quick       # smoke
 *   options: --rates 500,1000  --seconds N  --warmup N
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnRole, type SpawnedRole } from '@llmgw/testing';
import { arg, openLoop, pct, quick, QUIET } from './lib/open-loop';

const RATES = (arg('rates') ?? (quick ? '200' : '500,1000')).split(',').map(Number);
const SECONDS = Number(arg('seconds') ?? (quick ? 2 : 10));
const WARMUP_SECONDS = Number(arg('warmup') ?? (quick ? 1 : 3));

async function metric(adminUrl: string, re: RegExp): Promise<number> {
  const t = await (await fetch(`${adminUrl}/metrics`)).text();
  let sum = 0;
  for (const m of t.matchAll(re)) sum += Number(m[1]);
  return sum;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-adm-bench-'));
  const procs: SpawnedRole[] = [];
  try {
    const engineArgs = ['--port', '0', '--model', 'sim', '--prefill-tps', '0', '--decode-tps', '0', '--max-num-seqs', '2000', '--log-level', 'warn'];
    const engines = await Promise.all([0, 1, 2].map(() => spawnRole('sim-engine', engineArgs, QUIET)));
    procs.push(...engines);
    const endpoints = engines.map((e, i) => ({ name: `e${i}`, url: e.url, model: 'sim', max_num_seqs: 2000 }));
    const af = join(dir, 'admission.yaml');
    writeFileSync(af, JSON.stringify({ listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', log_level: 'warn', endpoints }));
    const adm = await spawnRole('admission', ['--config', af], QUIET);
    procs.push(adm);
    const grpc = new URL(adm.urls.grpc).host;
    const routerWith = async (name: string, admission: Record<string, unknown>) => {
      const f = join(dir, `router-${name}.yaml`);
      writeFileSync(f, JSON.stringify({ listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', log_level: 'warn', endpoints, admission }));
      const r = await spawnRole('router', ['--config', f], QUIET);
      procs.push(r);
      return r;
    };
    const routers = {
      off: await routerWith('off', { mode: 'off' }),
      before: await routerWith('before', { mode: 'remote', address: grpc, credit_interval: '0s' }),
      after: await routerWith('after', { mode: 'remote', address: grpc }),
    };
    console.log(
      `3 zero-latency sim-engines; admission service ${grpc}; routers with admission off / remote without credits (before) / remote with credits (after)`,
    );
    console.log(`${SECONDS}s per rate and router after ${WARMUP_SECONDS}s warm-up; added = router p50/p99 minus the admission-off router's\n`);
    console.log('rate/s  router   p50 ms  p99 ms  added p50  added p99  errors  service Acquires');
    for (const rate of RATES) {
      const off = await openLoop(routers.off.url, rate, SECONDS, WARMUP_SECONDS);
      const row = (name: string, r: { lat: number[]; errors: number }, acquires: string) =>
        console.log(
          `${String(rate).padStart(6)}  ${name.padEnd(7)} ${pct(r.lat, 50).toFixed(2).padStart(7)} ${pct(r.lat, 99).toFixed(2).padStart(7)}  ${(pct(r.lat, 50) - pct(off.lat, 50)).toFixed(2).padStart(9)}  ${(pct(r.lat, 99) - pct(off.lat, 99)).toFixed(2).padStart(9)}  ${String(r.errors).padStart(6)}  ${acquires}`,
        );
      row('off', off, '-');
      for (const name of ['before', 'after'] as const) {
        const a0 = await metric(adm.urls.admin, /^llmgw_admission_wait_seconds_count\{[^}]*\} (\S+)/gm);
        const r = await openLoop(routers[name].url, rate, SECONDS, WARMUP_SECONDS);
        const a1 = await metric(adm.urls.admin, /^llmgw_admission_wait_seconds_count\{[^}]*\} (\S+)/gm);
        row(name, r, `${a1 - a0} of ${(SECONDS + WARMUP_SECONDS) * rate}`);
      }
    }
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

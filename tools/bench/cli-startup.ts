/**
 * How long the `llmgw` command takes to start, from the sources (tsx, what
 * `llmgw` did before bundles) and from its esbuild bundles (fresh, and stale:
 * the rebuild included). Prints the median wall time of each case, and the
 * CPU time (user + system) the run used: on a busy machine the wall time
 * mostly measures the others, the CPU time is what an idle one would take.
 *
 *   - `node -e ''`: the floor, Node itself on this machine right now
 *   - `llmgw ctl org list` against a running accounting (goal < 1 s)
 *   - `llmgw up` until it prints "llmgw is up", fresh data dir (what `npm start`
 *     shows: the control plane, the demo replicas placed and READY; goal < 10 s),
 *     and `llmgw up --static` (fixed sim-engine endpoints) beside it
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/cli-startup.ts          # 5 runs per case
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/cli-startup.ts --quick  # 1 run per case
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { findRepoRoot, freePortRange, spawnRole } from '@llmgw/testing';

const root = findRepoRoot(__dirname);
const runs = process.argv.includes('--quick') ? 1 : 5;
const bin = join(root, 'bin', 'llmgw.cjs');
const FROM_SOURCE = { LLMGW_FROM_SOURCE: '1' };
const QUIET = { LLMGW_QUIET_BUILD: '1' };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const medians = (xs: Sample[]): Sample => ({ wallMs: median(xs.map((x) => x.wallMs)), cpuMs: median(xs.map((x) => x.cpuMs)) });

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** Wall and CPU time of one command run to completion (GNU time reads the CPU); it must exit 0. */
function timed(args: string[], env: Record<string, string> = {}): Sample {
  const out = join(tmpdir(), `llmgw-bench-time-${process.pid}`);
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-o', out, '-f', '%U %S', process.execPath, ...args], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [user, sys] = readFileSync(out, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
  rmSync(out, { force: true });
  return { wallMs, cpuMs: (user + sys) * 1000 };
}

/**
 * Wall time from spawning `llmgw up` (fresh data dir, as on a first `npm start`) to its
 * "llmgw is up" line, then SIGINT; CPU time is the whole run's, the stop included.
 */
async function timeUp(env: Record<string, string>, extra: string[] = []): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-up-'));
  const out = join(dir, 'time');
  const [low, high] = await freePortRange(50);
  const args = [
    '-o',
    out,
    '-f',
    '%U %S',
    process.execPath,
    bin,
    'up',
    '--port',
    '0',
    '--admin-port',
    '0',
    '--accounting-port',
    '0',
    '--admission-port',
    '0',
    '--control-port',
    '0',
    '--engine-ports',
    `${low}-${high}`,
    '--data-dir',
    join(dir, 'data'),
    ...extra,
  ];
  const t0 = performance.now();
  // Its own process group, signalled as a terminal's Ctrl-C would: GNU time ignores SIGINT itself.
  const child = spawn('/usr/bin/time', args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let text = '';
  return new Promise<Sample>((resolve, reject) => {
    let wallMs = -1;
    child.stdout.on('data', (c: Buffer) => {
      text += c.toString();
      if (wallMs < 0 && text.includes('llmgw is up')) {
        wallMs = performance.now() - t0;
        process.kill(-child.pid!, 'SIGINT');
      }
    });
    child.stderr.on('data', (c: Buffer) => (text += c.toString()));
    child.once('exit', (code) => {
      const cpu = wallMs < 0 ? [] : readFileSync(out, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
      rmSync(dir, { recursive: true, force: true });
      if (wallMs < 0) reject(new Error(`llmgw up exited ${code} before it was up:\n${text}`));
      else resolve({ wallMs, cpuMs: (cpu[0] + cpu[1]) * 1000 });
    });
  });
}

/** Makes the next start find `app`'s bundle stale, as an edit of one of its sources would (its record no longer matches). */
function staleOnce<T>(app: string, f: () => T): T {
  const manifest = join(root, 'dist', 'apps', app, 'inputs.json');
  const m = JSON.parse(readFileSync(manifest, 'utf8'));
  const first = Object.keys(m.files)[0];
  m.files[first] = { ...m.files[first], mtimeMs: 1, sha256: '0'.repeat(64) };
  writeFileSync(manifest, JSON.stringify(m));
  return f();
}

async function main(): Promise<void> {
  console.log(
    `llmgw CLI start-up, median of ${runs} run(s); load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on this machine`,
  );
  console.log(`  ${'case'.padEnd(58)} ${'wall'.padStart(8)} ${'cpu'.padStart(8)}`);
  const row = (what: string, s: Sample) =>
    console.log(`  ${what.padEnd(58)} ${(s.wallMs / 1000).toFixed(2).padStart(6)} s ${(s.cpuMs / 1000).toFixed(2).padStart(6)} s`);

  row("node -e '' (the floor)", medians(Array.from({ length: runs }, () => timed(['-e', '']))));

  const acct = await spawnRole('accounting', ['--port', '0', '--admin-port', '0', '--database-url', 'pglite:memory'], { timeoutMs: 180_000, env: QUIET });
  try {
    const ctl = [bin, 'ctl', '--accounting', new URL(acct.urls.grpc ?? acct.url).host, 'org', 'list'];
    timed(ctl, QUIET); // the bundle is built (if it was stale) outside the measurement
    row('llmgw ctl org list, from the sources (tsx)', medians(Array.from({ length: runs }, () => timed(ctl, FROM_SOURCE))));
    row('llmgw ctl org list, bundle fresh', medians(Array.from({ length: runs }, () => timed(ctl, QUIET))));
    row('llmgw ctl org list, bundle stale (rebuilt first)', medians(Array.from({ length: runs }, () => staleOnce('ctl', () => timed(ctl, QUIET)))));
  } finally {
    await acct.stop();
  }

  const ups = async (env: Record<string, string>, extra: string[] = []) => {
    const xs: Sample[] = [];
    for (let i = 0; i < runs; i++) xs.push(await timeUp(env, extra));
    return medians(xs);
  };
  await timeUp(QUIET); // build the up bundle outside the measurement
  row('llmgw up to "llmgw is up", from the sources (tsx)', await ups(FROM_SOURCE));
  row('llmgw up to "llmgw is up", bundle fresh', await ups(QUIET));
  row('llmgw up --static to "llmgw is up", bundle fresh', await ups(QUIET, ['--static']));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});

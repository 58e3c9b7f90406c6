/**
 * What one tokenizer worker thread costs the router to start (docs/prefix.md#block-hashes): from its own
 * entry (`dist/apps/router/tokenize-worker.js`, what the router runs) against the whole router bundle
 * (what a bundle without the entry falls back to). Each run is a fresh Node process that starts one
 * worker and waits for its `ready`; printed are the medians of the time to ready, the process's CPU
 * time by then (the worker's, mostly: on a busy machine the wall time measures the others) and the RSS
 * it added. Runs of the two alternate, so a change in the machine's load hits both.
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/tokenize-worker-start.ts            # 5 runs each
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/tokenize-worker-start.ts --runs 9
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { findRepoRoot } from '@llmgw/testing';

const root = findRepoRoot(__dirname);
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5;
const bundles = require(join(root, 'tools/scripts/build-app.cjs')) as { build(n: string): string; freshness(n: string): { fresh: boolean } };
if (!bundles.freshness('router').fresh) bundles.build('router');
const dir = join(root, 'dist/apps/router');

// One process, one worker: the pool's own way of starting it (require the file; a whole bundle registers the body as a global).
const probe = `
const { Worker } = require('node:worker_threads');
const rss0 = process.memoryUsage().rss, cpu0 = process.cpuUsage(), t0 = performance.now();
const code = "const { workerData } = require('node:worker_threads'); require(workerData.file); const run = globalThis[Symbol.for('llmgw.router.runTokenizeWorker')]; if (typeof run === 'function') run();";
const w = new Worker(code, { eval: true, workerData: { file: process.argv[1], opts: { blockSize: 16, hashSeed: '0' } } });
w.on('error', (e) => { console.error(e); process.exit(1); });
w.on('message', (m) => {
  if (!m.ready) return;
  const c = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ readyMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, rssMiB: (process.memoryUsage().rss - rss0) / 2 ** 20 }));
  process.exit(0);
});`;

type Sample = { readyMs: number; cpuMs: number; rssMiB: number };
const cases = { 'own entry (tokenize-worker.js)': join(dir, 'tokenize-worker.js'), 'whole router bundle (main.js)': join(dir, 'main.js') };
const samples = new Map<string, Sample[]>(Object.keys(cases).map((k) => [k, []]));
const load0 = loadavg()[0];
for (let i = 0; i < runs; i++) {
  for (const [name, file] of Object.entries(cases)) {
    const r = spawnSync(process.execPath, ['-e', probe, file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${name}: ${r.stderr}`);
    samples.get(name)!.push(JSON.parse(r.stdout) as Sample);
  }
  process.stderr.write('.');
}
process.stderr.write('\n');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`tokenizer worker start, ${runs} runs each, Node ${process.version}, load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`);
console.log(`${'worker from'.padEnd(32)} ${'ready ms'.padStart(9)} ${'CPU ms'.padStart(8)} ${'RSS MiB'.padStart(8)}`);
for (const [name, xs] of samples) {
  const m = (k: keyof Sample) => median(xs.map((x) => x[k]));
  console.log(`${name.padEnd(32)} ${m('readyMs').toFixed(0).padStart(9)} ${m('cpuMs').toFixed(0).padStart(8)} ${m('rssMiB').toFixed(1).padStart(8)}`);
}

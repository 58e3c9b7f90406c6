// `npm test`: the whole gate, in the order a failure is cheapest to find.
//   1. generated gRPC types are fresh, house checks (file size, sleeps in specs, import cycles)
//   2. format, lint and typecheck, at once   3. tests
// Nx's cache is skipped: a test replayed from cache proves nothing about this
// checkout (Nx keeps a per-user cache that even a fresh clone would hit).
// The last lines name every failed test (Jest's "●" headings; a CI log is often read from its tail)
// and total Jest's per-project counts as "N passed, N failed".
//
// LLMGW_TEST_NODE_BINS (space-separated bin directories of Node runtimes; CI sets it, see
// docs/deployment.md#node-versions): the tests run on each of those Nodes at once, every line prefixed
// with its Node, and then the projects in ALONE on each in turn. Steps 1 and 2 do not depend on the
// runtime and run once. Unset: the tests run on the Node that runs this script.
// LLMGW_TEST_LANES: how many projects' tests run at once on each Node (default 2; ALONE's run alone).
const { spawn } = require('node:child_process');
const path = require('node:path');
const root = path.resolve(__dirname, '../..');
const env = {
  ...process.env,
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
  NX_TUI: 'false',
  FORCE_COLOR: '0',
  // V8's compiled code of Nx, Jest and the packages they load kept on disk (Node >= 22.1); bin/llmgw.cjs
  // enables the same cache for every process the tests start.
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || path.join(require('node:os').tmpdir(), 'node-compile-cache'),
};
const totals = { passed: 0, failed: 0, skipped: 0 };
/** "[Node] FAIL <project> <file>" and "● <describe> › <test>" lines, in the order Jest printed them. */
const failures = [];

/** Runs one command, echoing its output (each line behind `prefix`, if any) and adding Jest's "Tests:" lines to `into`. */
function run(cmd, args, { prefix = '', extraEnv = {}, into = totals } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    const pending = { out: '', err: '' };
    const scan = (which, stream) => (chunk) => {
      pending[which] += chunk.toString();
      const lines = pending[which].split('\n');
      pending[which] = lines.pop();
      for (const line of lines) {
        count(line, into);
        noteFailure(line, prefix);
        if (prefix) stream.write(`${prefix}${line}\n`);
      }
      if (!prefix) stream.write(chunk);
    };
    child.stdout.on('data', scan('out', process.stdout));
    child.stderr.on('data', scan('err', process.stderr));
    child.on('close', (code) => {
      for (const which of ['out', 'err']) {
        if (!pending[which]) continue;
        count(pending[which], into);
        noteFailure(pending[which], prefix);
        if (prefix) process.stdout.write(`${prefix}${pending[which]}\n`);
      }
      resolve(code ?? 1);
    });
  });
}

/** Runs one step of the gate; the first that fails ends `npm test` with its exit code. */
async function step(name, cmd, args) {
  const t0 = Date.now();
  process.stdout.write(`\n== ${name}\n`);
  const code = await run(cmd, args);
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  if (code !== 0) {
    process.stdout.write(`== ${name} FAILED after ${s}s\n`);
    summary();
    process.exit(code);
  }
  process.stdout.write(`== ${name} ok (${s}s)\n`);
}

/** Steps that read the sources and nothing else, at once (one core each), every line behind the step's name. */
async function together(steps) {
  const t0 = Date.now();
  process.stdout.write(`\n== at once: ${steps.map(([name]) => name).join('; ')}\n`);
  const codes = await Promise.all(steps.map(([name, cmd, args]) => run(cmd, args, { prefix: `[${name.split(':')[0]}] ` })));
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  const failed = steps.filter((_, i) => codes[i] !== 0).map(([name]) => name);
  if (failed.length) {
    process.stdout.write(`== FAILED after ${s}s: ${failed.join('; ')}\n`);
    summary();
    process.exit(codes.find((c) => c !== 0));
  }
  process.stdout.write(`== ${steps.map(([name]) => name).join('; ')}: ok (${s}s)\n`);
}

function count(line, into = totals) {
  // Jest: "Tests:       1 failed, 2 skipped, 40 passed, 43 total"
  const m = /^\s*Tests:\s+(.*\d+ total)\s*$/.exec(line.replace(/\x1b\[[0-9;]*m/g, ''));
  if (!m) return;
  for (const [, n, what] of m[1].matchAll(/(\d+) (passed|failed|skipped|todo)/g)) {
    if (what in into) into[what] += Number(n);
  }
}

/** Per output prefix: the "●" heading in `failures` (its index) whose error message is being read, and how many lines of it. */
const awaitingMessage = new Map();

/**
 * Keeps a failed suite's or test's heading line (not Jest's "● Console" blocks of a passing suite),
 * and under each test's heading the first line of its error, so that the tail says why.
 */
function noteFailure(line, prefix) {
  const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
  const text = plain.trim();
  if (/^\s*FAIL\s/.test(plain) || (/^\s*● /.test(plain) && !/^\s*● Console\s*$/.test(plain))) {
    const entry = `${prefix}${text}`;
    awaitingMessage.delete(prefix);
    if (failures.includes(entry)) return;
    failures.push(entry);
    if (text.startsWith('●')) awaitingMessage.set(prefix, { at: failures.length - 1, lines: 0 });
  } else if (text && awaitingMessage.has(prefix)) {
    // Up to three lines of the message ("Expected: …" and "Received: …" included), not the stack or code frame.
    const w = awaitingMessage.get(prefix);
    if (/^at /.test(text) || /^(>\s*)?\d+\s*\|/.test(text) || w.lines === 3) return void awaitingMessage.delete(prefix);
    w.lines++;
    failures[w.at] += `\n      ${prefix}${text.length > 400 ? `${text.slice(0, 400)}…` : text}`;
  }
}

function summary() {
  if (failures.length) process.stdout.write(`\nfailed:\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
  process.stdout.write(`\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}\n`);
}

/** The version of the Node in `bin` (a directory), e.g. "v24.22.3". */
function nodeVersion(bin) {
  return require('node:child_process').execFileSync(path.join(bin, 'node'), ['-v'], { encoding: 'utf8' }).trim();
}

// Projects whose tests run with nothing else on the machine's cores: admission's isolation specs measure
// engine occupancy and queue depth under a flood they generate, and another suite's flood on the same two
// cores would be measured with it.
const ALONE = ['admission'];

// Projects whose tests run at once on each Node (LLMGW_TEST_LANES, default 2). Most of the suite's
// time is waiting: for processes to start, for leases and quiet periods to lapse, for engines to
// answer at their modelled speed, so one project at a time leaves the cores half idle.
const LANES = Math.max(1, Number(process.env.LLMGW_TEST_LANES) || 2);

/** The tests on each Node of LLMGW_TEST_NODE_BINS at once, then ALONE's on each in turn. */
async function testsOnEach(nx, bins) {
  const t0 = Date.now();
  const runs = bins.map((bin) => ({ bin, version: nodeVersion(bin), totals: { passed: 0, failed: 0, skipped: 0 }, failed: [] }));
  const on = runs.map((r) => `Node ${r.version}`).join(' and ');
  const lanes = `${LANES} project${LANES > 1 ? 's' : ''} at a time${runs.length > 1 ? ' on each' : ''}, then ${ALONE.join(', ')} alone`;
  process.stdout.write(`\n== test on ${on}${runs.length > 1 ? ' at once' : ''}: ${lanes} (every line behind its Node)\n`);
  const onNode = (r, args, what) =>
    run(nx, args, {
      prefix: `[${r.version}] `,
      into: r.totals,
      extraEnv: {
        PATH: `${r.bin}${path.delimiter}${process.env.PATH}`,
        // Two Nx processes at once: each keeps its project graph and task records apart.
        NX_WORKSPACE_DATA_DIRECTORY: path.join(root, '.nx', `workspace-data-${r.version}`),
        NX_CACHE_DIRECTORY: path.join(root, '.nx', `cache-${r.version}`),
      },
    }).then((code) => code !== 0 && r.failed.push(what));
  const many = ['run-many', '-t', 'test', '--outputStyle=static', '--skip-nx-cache'];
  await Promise.all(runs.map((r) => onNode(r, [...many, `--parallel=${LANES}`, '--exclude', ALONE.join(',')], 'tests')));
  for (const r of runs) await onNode(r, [...many, '--parallel=1', '-p', ALONE.join(',')], ALONE.join(','));
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  for (const r of runs) {
    for (const k of Object.keys(totals)) totals[k] += r.totals[k];
    const t = r.totals;
    process.stdout.write(
      `== Node ${r.version}: ${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ''}${r.failed.length ? ` (FAILED: ${r.failed.join(', ')})` : ''}\n`,
    );
  }
  if (runs.some((r) => r.failed.length)) {
    process.stdout.write(`== test FAILED after ${s}s\n`);
    summary();
    process.exit(1);
  }
  process.stdout.write(`== test ok (${s}s)\n`);
}

(async () => {
  const nx = path.join(root, 'node_modules/.bin/nx');
  const bin = (name) => path.join(root, 'node_modules/.bin', name);
  await step('proto: generated types are fresh', 'node', ['tools/scripts/proto-gen.cjs', '--check']);
  await step('house: no non-test file over 450 lines', 'node', ['tools/scripts/check-file-size.cjs']);
  await step('house: specs wait for events, not sleeps', 'node', ['tools/scripts/check-spec-sleeps.cjs']);
  await step('house: no import cycle', 'node', ['tools/scripts/check-import-cycles.cjs']);
  await together([
    ['format: prettier --check', bin('prettier'), ['--check', '.', '--log-level', 'warn']],
    ['lint', nx, ['run-many', '-t', 'lint', '--outputStyle=static', '--skip-nx-cache']],
    ['lint: bin and tools', bin('eslint'), ['--max-warnings=0', '--no-error-on-unmatched-pattern', 'bin', 'tools']],
    ['typecheck: every project, bin and tools in one program', 'node', ['tools/scripts/typecheck.cjs']],
  ]);
  const bins = (process.env.LLMGW_TEST_NODE_BINS ?? '').split(/\s+/).filter(Boolean);
  await testsOnEach(nx, bins.length ? bins : [path.dirname(process.execPath)]);
  summary();
})();

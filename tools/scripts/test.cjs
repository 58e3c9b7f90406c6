// `npm test`: the whole gate, in the order a failure is cheapest to find.
//   1. generated gRPC types are fresh, house checks (file size, sleeps in specs, import cycles), formatting
//   2. lint   3. typecheck   4. tests
// Nx's cache is skipped: a test replayed from cache proves nothing about this
// checkout (Nx keeps a per-user cache that even a fresh clone would hit).
// The last line totals Jest's per-project counts as "N passed, N failed".
const { spawn } = require('node:child_process');
const path = require('node:path');
const root = path.resolve(__dirname, '../..');
const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', FORCE_COLOR: '0' };
const totals = { passed: 0, failed: 0, skipped: 0 };

/** Runs one step, echoing its output and adding up Jest's "Tests:" lines. */
function step(name, cmd, args) {
  const t0 = Date.now();
  process.stdout.write(`\n== ${name}\n`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    const scan = (chunk) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) count(line);
    };
    child.stdout.on('data', (c) => (process.stdout.write(c), scan(c)));
    child.stderr.on('data', (c) => (process.stderr.write(c), scan(c)));
    child.on('close', (code) => {
      if (pending) count(pending);
      const s = ((Date.now() - t0) / 1000).toFixed(1);
      if (code !== 0) {
        process.stdout.write(`== ${name} FAILED after ${s}s\n`);
        summary();
        process.exit(code ?? 1);
      }
      process.stdout.write(`== ${name} ok (${s}s)\n`);
      resolve();
    });
  });
}

function count(line) {
  // Jest: "Tests:       1 failed, 2 skipped, 40 passed, 43 total"
  const m = /^\s*Tests:\s+(.*\d+ total)\s*$/.exec(line.replace(/\x1b\[[0-9;]*m/g, ''));
  if (!m) return;
  for (const [, n, what] of m[1].matchAll(/(\d+) (passed|failed|skipped|todo)/g)) {
    if (what in totals) totals[what] += Number(n);
  }
}

function summary() {
  process.stdout.write(`\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}\n`);
}

(async () => {
  const nx = path.join(root, 'node_modules/.bin/nx');
  const bin = (name) => path.join(root, 'node_modules/.bin', name);
  await step('proto: generated types are fresh', 'node', ['tools/scripts/proto-gen.cjs', '--check']);
  await step('house: no non-test file over 450 lines', 'node', ['tools/scripts/check-file-size.cjs']);
  await step('house: specs wait for events, not sleeps', 'node', ['tools/scripts/check-spec-sleeps.cjs']);
  await step('house: no import cycle', 'node', ['tools/scripts/check-import-cycles.cjs']);
  await step('format: prettier --check', bin('prettier'), ['--check', '.', '--log-level', 'warn']);
  await step('lint', nx, ['run-many', '-t', 'lint', '--outputStyle=static', '--skip-nx-cache']);
  await step('lint: bin and tools', bin('eslint'), ['--max-warnings=0', '--no-error-on-unmatched-pattern', 'bin', 'tools']);
  await step('typecheck: every project, bin and tools in one program', 'node', ['tools/scripts/typecheck.cjs']);
  await step('test', nx, ['run-many', '-t', 'test', '--outputStyle=static', '--parallel=1', '--skip-nx-cache']);
  summary();
})();

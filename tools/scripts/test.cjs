// `npm test`: the whole gate, in the order a failure is cheapest to find.
//   1. generated gRPC types are fresh   2. lint   3. typecheck   4. tests
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const root = path.resolve(__dirname, '../..');
const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', FORCE_COLOR: '0' };

function step(name, cmd, args) {
  const t0 = Date.now();
  process.stdout.write(`\n== ${name}\n`);
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: 'inherit' });
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) {
    process.stdout.write(`== ${name} FAILED after ${s}s\n`);
    process.exit(r.status ?? 1);
  }
  process.stdout.write(`== ${name} ok (${s}s)\n`);
}

const nx = path.join(root, 'node_modules/.bin/nx');
step('proto: generated types are fresh', 'node', ['tools/scripts/proto-gen.cjs', '--check']);
step('lint', nx, ['run-many', '-t', 'lint', '--outputStyle=static']);
step('lint: bin and tools', path.join(root, 'node_modules/.bin/eslint'), ['--max-warnings=0', '--no-error-on-unmatched-pattern', 'bin', 'tools']);
step('typecheck', nx, ['run-many', '-t', 'typecheck', '--outputStyle=static']);
step('typecheck: bin and tools', path.join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.tools.json', '--noEmit']);
step('test', nx, ['run-many', '-t', 'test', '--outputStyle=static', '--parallel=1']);

#!/usr/bin/env node
// The one `llmgw` executable. It dispatches to every role; each role lives in
// its own app (apps/<role>/src/main.ts, exporting `main(argv)`), so every
// service also builds and deploys on its own.
//
// A role runs from its esbuild bundle, dist/apps/<role>/main.js (tens of ms to
// load, against seconds for compiling the TypeScript sources with tsx). The
// bundle is checked against the sources it was built from on every start (one
// stat per source file, see tools/scripts/build-app.cjs) and rebuilt first
// when any differs: a stale bundle is never run. Without sources (a deployed
// dist/) the bundle runs as it is. LLMGW_FROM_SOURCE=1 runs the sources
// through tsx instead (debugging); LLMGW_DIST_DIR names another directory
// for the bundles (tests that edit a bundle's record use their own).
'use strict';
const path = require('node:path');
const fs = require('node:fs');

// V8's compiled code for the bundle and the packages it loads is kept on disk
// (Node >= 22.1; NODE_COMPILE_CACHE names the directory, the OS temp dir by
// default), so every later start of a role or of `llmgw ctl` compiles less:
// about a tenth less start-up CPU (docs/performance.md, CLI start-up). A
// directory that cannot be written just means no cache.
try {
  require('node:module').enableCompileCache?.();
} catch {
  // not available: start as before
}

const root = path.resolve(__dirname, '..');
const ROLES = {
  router: 'OpenAI-compatible data path: admission, scheduling, streaming proxy',
  admission: 'the admission service: band queues, saturation, fairness, leases',
  inventory: 'the fleet-facing port agents dial into; node, GPU and shard state',
  'placement-scheduler': 'catalog, placement, reconciler and the control admin API',
  accounting: 'tenancy, keys, limits, budgets and the usage ledger',
  'node-agent': 'the agent on every GPU node: discovery and engine supervision',
  'sim-engine': 'a fake OpenAI-compatible engine with vLLM-style /metrics',
  ctl: 'the operator CLI over the admin APIs',
  portal: 'people: sign-up, sign-in, claim links, /me, /chat and the /admin pages',
  up: 'the whole stack on one machine, on embedded defaults',
};

function usage(out) {
  const width = Math.max(...Object.keys(ROLES).map((r) => r.length));
  out.write('Usage: llmgw <role> [options]\n\nRoles:\n');
  for (const [role, what] of Object.entries(ROLES)) out.write(`  ${role.padEnd(width)}  ${what}\n`);
  out.write('\nRun `llmgw <role> --help` for the options of one role.\n');
}

function load(role) {
  const entry = path.join(root, 'apps', role, 'src', 'main.ts');
  const built = path.join(process.env.LLMGW_DIST_DIR || path.join(root, 'dist'), 'apps', role, 'main.js');
  if (!fs.existsSync(entry)) return require(built);
  if (process.env.LLMGW_FROM_SOURCE === '1') {
    process.env.TSX_TSCONFIG_PATH = process.env.TSX_TSCONFIG_PATH || path.join(root, 'tsconfig.base.json');
    require('tsx/cjs');
    return require(entry);
  }
  const bundles = require(path.join(root, 'tools', 'scripts', 'build-app.cjs'));
  const f = bundles.freshness(role);
  if (!f.fresh) {
    const t0 = Date.now();
    try {
      bundles.build(role);
    } catch (e) {
      // Never fall back to the old bundle: it is not what the sources say.
      throw new Error(
        `cannot build ${role} (${f.reason}): ${e && e.message ? e.message : e}\nRun the sources instead with LLMGW_FROM_SOURCE=1, or fix the build.`,
      );
    }
    if (process.env.LLMGW_QUIET_BUILD !== '1') process.stderr.write(`llmgw: rebuilt ${role} (${f.reason}) in ${Date.now() - t0} ms\n`);
  }
  return require(built);
}

// A reader that goes away (`llmgw … --help | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e && e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

async function run() {
  const [role, ...rest] = process.argv.slice(2);
  if (!role || role === '--help' || role === '-h' || role === 'help') {
    usage(process.stdout);
    return role ? 0 : 2;
  }
  if (role === '--version' || role === '-V') {
    process.stdout.write(require(path.join(root, 'package.json')).version + '\n');
    return 0;
  }
  if (!Object.prototype.hasOwnProperty.call(ROLES, role)) {
    process.stderr.write(`llmgw: unknown role "${role}"\n\n`);
    usage(process.stderr);
    return 2;
  }
  const mod = load(role);
  const code = await mod.main(rest);
  return typeof code === 'number' ? code : undefined;
}

run().then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`llmgw: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  },
);

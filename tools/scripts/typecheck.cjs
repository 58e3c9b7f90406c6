// Type-checks the whole workspace as one TypeScript program: every project's
// tsconfig.json (apps/*, libs/*, deploy) and tsconfig.tools.json (bin, tools)
// extend tsconfig.base.json and differ only in what they include, so one
// program checks exactly the same files as one `tsc` per project, but reads
// each shared lib once instead of once per project that imports it (about a
// third of the CPU: docs/deployment.md#node-versions). Each project's own
// `nx typecheck` target stays for working on one project.
//
//   node tools/scripts/typecheck.cjs          what `npm test` runs
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '../..');
const base = path.join(root, 'tsconfig.base.json');

/** The project configs `npm test` covers, with what each includes (absolute). */
function projectConfigs() {
  const configs = [];
  for (const group of ['apps', 'libs']) {
    for (const name of fs.readdirSync(path.join(root, group)).sort()) {
      const file = path.join(root, group, name, 'tsconfig.json');
      if (fs.existsSync(file)) configs.push(file);
    }
  }
  configs.push(path.join(root, 'deploy', 'tsconfig.json'), path.join(root, 'tsconfig.tools.json'));
  const include = [];
  for (const file of configs) {
    const config = JSON.parse(fs.readFileSync(file, 'utf8'));
    const own = Object.keys(config).filter((k) => k !== 'extends' && k !== 'include');
    // Anything beyond `include` (its own compilerOptions) would make the merged program check it differently.
    if (path.resolve(path.dirname(file), config.extends ?? '') !== base || own.length > 0)
      throw new Error(`${path.relative(root, file)} must extend tsconfig.base.json and set only "include" (it sets ${own.join(', ') || 'another extends'})`);
    for (const pattern of config.include) include.push(path.join(path.dirname(file), pattern));
  }
  return include;
}

// Written under node_modules so that TypeScript finds the @types packages from where the config lies.
fs.mkdirSync(path.join(root, 'node_modules', '.cache'), { recursive: true });
const dir = fs.mkdtempSync(path.join(root, 'node_modules', '.cache', 'llmgw-typecheck-'));
const merged = path.join(dir, 'tsconfig.json');
fs.writeFileSync(merged, JSON.stringify({ extends: base, include: projectConfigs() }, null, 1));
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const r = spawnSync(process.execPath, [tsc, '-p', merged, '--noEmit'], { cwd: root, stdio: 'inherit' });
fs.rmSync(dir, { recursive: true, force: true });
process.exit(r.status ?? 1);

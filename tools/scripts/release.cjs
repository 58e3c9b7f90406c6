#!/usr/bin/env node
// `npm run release`: a versioned tarball a platform team installs with no
// sources, no npm and no registry (docs/deployment.md#release-tarball):
//
//   llmgw-<version>-<platform>-<arch>/
//     bin/llmgw.cjs              the one executable (runs dist/ as it is: no sources beside it)
//     dist/apps/<role>/main.js   every role's bundle (tools/scripts/build-app.cjs), with its source map
//                                (and tokenize-worker.js beside the router's and up's)
//     proto/                     the gRPC contracts the services load at start
//     node_modules/              the runtime packages the bundles keep external, and only those
//     deploy/                    systemd units, example configs, haproxy, containers, compose, dashboards
//     docs/                      the operator documentation the units point at
//     package.json               name, version, engines and the dependencies shipped
//     SHA256SUMS                 every file above (`sha256sum -c SHA256SUMS` in the unpacked dir)
//
// and beside the tarball `<tarball>.sha256`. The tarball is for the machine's
// platform: zeromq's native addon is prebuilt per platform.
//
//   node tools/scripts/release.cjs [--out <dir>] [--no-build]
//     --out       where the tarball goes (default dist/release)
//     --no-build  package the bundles already in dist/apps (they must be fresh)
'use strict';
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const bundles = require('./build-app.cjs');

// Every role bin/llmgw.cjs dispatches to.
const ROLES = ['router', 'admission', 'inventory', 'placement-scheduler', 'accounting', 'node-agent', 'sim-engine', 'portal', 'ctl', 'up'];
// Packages the bundles never load without sources: tsx runs sources (LLMGW_FROM_SOURCE=1).
const SOURCE_ONLY = new Set(['tsx']);
// Build-time parts of runtime packages: zeromq's C++ sources and its addons for other platforms.
function pruned(rel) {
  if (/^node_modules\/zeromq\/(src|script)\//.test(rel)) return true;
  const m = /^node_modules\/zeromq\/build\/([^/]+)\/([^/]+)\//.exec(rel);
  return !!m && `${m[1]}/${m[2]}` !== `${process.platform}/${process.arch}`;
}
const DEPLOY_DIRS = ['systemd', 'examples', 'loadbalancer', 'containers', 'compose', 'grafana', 'prometheus'];

function parse(argv) {
  const o = { out: path.join(root, 'dist', 'release'), build: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') o.out = path.resolve(argv[++i] ?? '');
    else if (a === '--no-build') o.build = false;
    else if (a === '--help' || a === '-h') o.help = true;
    else throw new Error(`unknown argument "${a}" (usage: release.cjs [--out <dir>] [--no-build])`);
  }
  return o;
}

/** The directory of package `name` as Node resolves it from `fromDir` (node_modules upwards). */
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const cand = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(cand, 'package.json'))) return cand;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The runtime closure of `names`: every package directory (relative to the repo root) they
 * need, following dependencies and the optional dependencies that are installed.
 */
function closure(names) {
  const seen = new Set();
  const walk = (name, fromDir, optional) => {
    const dir = packageDir(name, fromDir);
    if (!dir) {
      if (optional) return;
      throw new Error(`runtime package ${name} is not installed (npm ci first)`);
    }
    const rel = path.relative(root, dir);
    if (seen.has(rel)) return;
    seen.add(rel);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const d of Object.keys(pkg.dependencies ?? {})) walk(d, dir, false);
    for (const d of Object.keys(pkg.optionalDependencies ?? {})) walk(d, dir, true);
    for (const [d, meta] of Object.entries(pkg.peerDependenciesMeta ?? {})) if (!meta.optional && !pkg.dependencies?.[d]) walk(d, dir, true);
    for (const d of Object.keys(pkg.peerDependencies ?? {})) if (!pkg.peerDependenciesMeta?.[d]?.optional) walk(d, dir, true);
  };
  for (const n of names) walk(n, root, false);
  return [...seen].sort();
}

/** Copies a file tree, skipping nested node_modules (they are packages of their own in the closure). */
function copyTree(from, to, filter = () => true) {
  fs.cpSync(from, to, {
    recursive: true,
    dereference: true,
    filter: (src) => {
      const rel = path.relative(from, src);
      if (rel.split(path.sep).includes('node_modules')) return false;
      return filter(path.relative(root, src));
    },
  });
}

function walkFiles(dir, base = dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walkFiles(p, base));
    else if (e.isFile()) out.push(path.relative(base, p).split(path.sep).join('/'));
  }
  return out.sort();
}

const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Builds the release; returns { tarball, name, files }. */
function release(o) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const name = `llmgw-${pkg.version}-${process.platform}-${process.arch}`;
  for (const role of ROLES) {
    if (o.build) bundles.build(role);
    const f = bundles.freshness(role);
    if (!f.fresh) throw new Error(`dist/apps/${role} is stale (${f.reason}); run without --no-build`);
  }
  fs.mkdirSync(o.out, { recursive: true });
  const stage = fs.mkdtempSync(path.join(o.out, '.stage-'));
  const top = path.join(stage, name);
  try {
    fs.mkdirSync(top);
    copyTree(path.join(root, 'bin'), path.join(top, 'bin'), (rel) => !rel.endsWith('.ts'));
    for (const role of ROLES) {
      // The bundle, and the worker threads' entries built beside it (the router's tokenizer worker).
      const workers = bundles.WORKERS.map((w) => w.out).filter((out) => fs.existsSync(path.join(root, 'dist/apps', role, out)));
      for (const f of ['main.js', ...workers].flatMap((js) => [js, `${js}.map`])) {
        fs.mkdirSync(path.join(top, 'dist/apps', role), { recursive: true });
        fs.copyFileSync(path.join(root, 'dist/apps', role, f), path.join(top, 'dist/apps', role, f));
      }
      // Files a bundle serves beside itself (the portal's views and assets, copied there by build-app).
      for (const d of ['views', 'assets']) {
        const from = path.join(root, 'dist/apps', role, d);
        if (fs.existsSync(from)) copyTree(from, path.join(top, 'dist/apps', role, d));
      }
    }
    copyTree(path.join(root, 'proto'), path.join(top, 'proto'));
    for (const d of DEPLOY_DIRS) if (fs.existsSync(path.join(root, 'deploy', d))) copyTree(path.join(root, 'deploy', d), path.join(top, 'deploy', d));
    copyTree(path.join(root, 'docs'), path.join(top, 'docs'));
    for (const f of ['README.md', 'CHANGELOG.md']) if (fs.existsSync(path.join(root, f))) fs.copyFileSync(path.join(root, f), path.join(top, f));
    const runtime = Object.keys(pkg.dependencies ?? {}).filter((d) => !SOURCE_ONLY.has(d));
    for (const rel of closure(runtime)) copyTree(path.join(root, rel), path.join(top, rel), (r) => !pruned(r.split(path.sep).join('/') + '/'));
    const shipped = {};
    for (const d of runtime) shipped[d] = pkg.dependencies[d];
    const manifest = {
      name: pkg.name,
      version: pkg.version,
      private: true,
      description: pkg.description,
      license: pkg.license,
      engines: pkg.engines,
      bin: pkg.bin,
      dependencies: shipped,
    };
    fs.writeFileSync(path.join(top, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
    const files = walkFiles(top);
    fs.writeFileSync(path.join(top, 'SHA256SUMS'), files.map((f) => `${sha256(path.join(top, f))}  ${f}\n`).join(''));
    const tarball = path.join(o.out, `${name}.tar.gz`);
    // Reproducible: sorted names, fixed owner and mtime (the commit's time when there is one).
    const mtime = gitTime() ?? '@0';
    execFileSync('tar', ['--sort=name', `--mtime=${mtime}`, '--owner=0', '--group=0', '--numeric-owner', '-czf', tarball, '-C', stage, name]);
    fs.writeFileSync(`${tarball}.sha256`, `${sha256(tarball)}  ${path.basename(tarball)}\n`);
    return { tarball, name, files: files.length + 1 };
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

function gitTime() {
  try {
    const t = execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return /^\d+$/.test(t) ? `@${t}` : undefined;
  } catch {
    return undefined;
  }
}

module.exports = { release, closure, ROLES };

if (require.main === module) {
  let o;
  try {
    o = parse(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`release: ${e.message}\n`);
    process.exit(2);
  }
  if (o.help) {
    process.stdout.write(
      'usage: node tools/scripts/release.cjs [--out <dir>] [--no-build]\n  a versioned tarball of the bundles, runtime packages, systemd units, example configs and SHA256SUMS\n',
    );
    process.exit(0);
  }
  try {
    const r = release(o);
    const size = (fs.statSync(r.tarball).size / 1048576).toFixed(1);
    process.stdout.write(
      `${path.relative(process.cwd(), r.tarball)} (${size} MiB, ${r.files} files; SHA256SUMS inside, ${path.basename(r.tarball)}.sha256 beside)\n`,
    );
  } catch (e) {
    process.stderr.write(`release: ${e.message}\n`);
    process.exit(1);
  }
}

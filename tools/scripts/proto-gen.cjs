// Generates TypeScript types for every proto under proto/ into
// libs/contracts/src/generated, with the loader options used at run time
// (libs/contracts/src/loader-options.ts). `--check` regenerates into a temp
// folder and fails when the committed output differs (stale generated code).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const protoDir = path.join(root, 'proto');
const outDir = path.join(root, 'libs/contracts/src/generated');
const check = process.argv.includes('--check');

// Keep in step with PROTO_GEN_FLAGS in libs/contracts/src/loader-options.ts (a spec checks it).
const FLAGS = ['--longs=Number', '--enums=String', '--defaults', '--oneofs', '--grpcLib=@grpc/grpc-js'];

function listProtos(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listProtos(p) : e.name.endsWith('.proto') ? [p] : [];
  });
}

function listFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(p).map((f) => path.join(e.name, f)) : [e.name];
  }).sort();
}

function generate(target) {
  const protos = listProtos(protoDir).map((p) => path.relative(protoDir, p)).sort();
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  if (protos.length === 0) return;
  const bin = path.join(root, 'node_modules/.bin/proto-loader-gen-types');
  const r = spawnSync(bin, [...FLAGS, '-I', protoDir, '-O', target, ...protos], { cwd: protoDir, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(r.stderr || r.stdout);
    process.exit(r.status ?? 1);
  }
}

if (!check) {
  generate(outDir);
  console.log(`generated ${listFiles(outDir).length} files into ${path.relative(root, outDir)}`);
  process.exit(0);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'llmgw-proto-'));
try {
  generate(tmp);
  const want = listFiles(tmp);
  const have = listFiles(outDir);
  const problems = [];
  for (const f of new Set([...want, ...have])) {
    if (!want.includes(f)) problems.push(`extra (no proto generates it): ${f}`);
    else if (!have.includes(f)) problems.push(`missing: ${f}`);
    else if (fs.readFileSync(path.join(tmp, f), 'utf8') !== fs.readFileSync(path.join(outDir, f), 'utf8')) problems.push(`stale: ${f}`);
  }
  if (problems.length) {
    console.error(`generated gRPC types are out of date; run \`npm run proto:gen\`:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`generated types are fresh (${want.length} files)`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}

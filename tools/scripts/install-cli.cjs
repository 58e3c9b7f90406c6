#!/usr/bin/env node
// Puts an `llmgw` command for this checkout on PATH: a two-line launcher that
// runs bin/llmgw.cjs here, from any directory, without npm or a registry.
//
//   node tools/scripts/install-cli.cjs          # ~/.local/bin/llmgw
//   node tools/scripts/install-cli.cjs --dir /usr/local/bin
//   node tools/scripts/install-cli.cjs --uninstall [--dir …]
//
// It refuses to replace an `llmgw` it did not write (--force to do it anyway).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const MARK = '# llmgw launcher written by tools/scripts/install-cli.cjs';

function parse(argv) {
  const o = { dir: path.join(os.homedir(), '.local', 'bin'), force: false, uninstall: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dir') o.dir = path.resolve(argv[++i] ?? '');
    else if (a === '--force') o.force = true;
    else if (a === '--uninstall') o.uninstall = true;
    else if (a === '--help' || a === '-h') o.help = true;
    else throw new Error(`unknown argument "${a}"`);
  }
  return o;
}

const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

function main() {
  let o;
  try {
    o = parse(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`install-cli: ${e.message}\n`);
    return 2;
  }
  if (o.help) {
    process.stdout.write(
      'Usage: install-cli.cjs [--dir <dir>] [--force] [--uninstall]\nPuts an `llmgw` launcher for this checkout in <dir> (default ~/.local/bin).\n',
    );
    return 0;
  }
  const target = path.join(o.dir, 'llmgw');
  const existing = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
  const ours = existing !== undefined && existing.includes(MARK);
  if (o.uninstall) {
    if (existing === undefined) process.stdout.write(`nothing at ${target}\n`);
    else if (!ours && !o.force) {
      process.stderr.write(`install-cli: ${target} was not written by this script; not removing it (--force to remove)\n`);
      return 1;
    } else {
      fs.rmSync(target);
      process.stdout.write(`removed ${target}\n`);
    }
    return 0;
  }
  if (existing !== undefined && !ours && !o.force) {
    process.stderr.write(`install-cli: ${target} exists and was not written by this script; not replacing it (--force to replace)\n`);
    return 1;
  }
  fs.mkdirSync(o.dir, { recursive: true });
  const launcher = `#!/bin/sh\n${MARK}\n# for the checkout at ${root}\nexec node ${quote(path.join(root, 'bin', 'llmgw.cjs'))} "$@"\n`;
  fs.writeFileSync(`${target}.tmp`, launcher, { mode: 0o755 });
  fs.renameSync(`${target}.tmp`, target);
  process.stdout.write(`installed ${target} -> ${path.join(root, 'bin', 'llmgw.cjs')}\n`);
  const onPath = (process.env.PATH ?? '').split(path.delimiter).some((d) => d && path.resolve(d) === o.dir);
  if (!onPath) process.stdout.write(`${o.dir} is not on your PATH; add it, e.g.\n  export PATH="${o.dir}:$PATH"\n`);
  return 0;
}

process.exitCode = main();

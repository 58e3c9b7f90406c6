import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

// The README's commands run as `llmgw …` from any directory, through the launcher
// tools/scripts/install-cli.cjs puts on PATH: no npm, no registry.
const root = join(__dirname, '../../..');
const installer = join(root, 'tools/scripts/install-cli.cjs');

describe('install-cli', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-install-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('puts an llmgw on PATH that runs this checkout from any directory, with no registry reachable', () => {
    execFileSync(process.execPath, [installer, '--dir', join(dir, 'bin')]);
    const elsewhere = mkdtempSync(join(tmpdir(), 'llmgw-cwd-'));
    try {
      const env = {
        ...process.env,
        PATH: `${join(dir, 'bin')}${delimiter}${process.env.PATH}`,
        // Were npm asked anything, it would have to come here, and fail.
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_offline: 'true',
      };
      const version = spawnSync('llmgw', ['--version'], { cwd: elsewhere, env, encoding: 'utf8' });
      expect(version.status).toBe(0);
      expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
      const help = spawnSync('llmgw', ['ctl', '--help'], { cwd: elsewhere, env: { ...env, LLMGW_QUIET_BUILD: '1' }, encoding: 'utf8' });
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/Usage: llmgw ctl/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 180_000);

  it('refuses to replace or remove an llmgw it did not write', () => {
    const foreign = join(dir, 'llmgw');
    writeFileSync(foreign, '#!/bin/sh\necho someone else\n');
    expect(spawnSync(process.execPath, [installer, '--dir', dir]).status).toBe(1);
    expect(spawnSync(process.execPath, [installer, '--dir', dir, '--uninstall']).status).toBe(1);
    expect(readFileSync(foreign, 'utf8')).toContain('someone else');
    expect(spawnSync(process.execPath, [installer, '--dir', dir, '--force']).status).toBe(0);
    expect(spawnSync(process.execPath, [installer, '--dir', dir, '--uninstall']).status).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the README and docs never send a reader to the registry for llmgw', () => {
    const docs = [
      'README.md',
      ...readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => join('docs', f)),
    ];
    const offenders = docs.filter((f) => /\bnpx\s+llmgw\b/.test(readFileSync(join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});

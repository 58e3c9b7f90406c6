import { waitUntil } from '@llmgw/testing';
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
const bundles = require(join(root, 'tools/scripts/build-app.cjs')) as { build(name: string): string };

/**
 * The portal deploys from dist/ (docs/portal.md, "Running it"): the bundle
 * with its views and assets beside it, started where no apps/ sources exist
 * (bin, dist, proto, package.json and node_modules only).
 */
describe('the portal from its bundle', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves its pages and assets with no sources beside it', async () => {
    const built = bundles.build('portal');
    dir = mkdtempSync(join(tmpdir(), 'llmgw-portal-dist-'));
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist', 'apps'), { recursive: true });
    cpSync(join(root, 'bin', 'llmgw.cjs'), join(dir, 'bin', 'llmgw.cjs'));
    cpSync(join(root, 'package.json'), join(dir, 'package.json'));
    cpSync(join(root, 'proto'), join(dir, 'proto'), { recursive: true });
    cpSync(resolve(built, '..'), join(dir, 'dist', 'apps', 'portal'), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(
      join(dir, 'portal.yaml'),
      'listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nrouter_url: http://127.0.0.1:9\naccounting: { address: "127.0.0.1:9" }\nlog_level: info\n',
    );
    let out = '';
    child = spawn(process.execPath, [join(dir, 'bin', 'llmgw.cjs'), 'portal', '-c', join(dir, 'portal.yaml')], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    let url = '';
    await waitUntil(
      () => {
        url = /"url":"(http:\/\/[^"]+)"/.exec(out)?.[1] ?? '';
        if (child!.exitCode !== null) throw new Error(`the portal exited: ${out}`);
        return Boolean(url);
      },
      'the portal to listen',
      { timeoutMs: 60_000 },
    );
    const signin = await fetch(`${url}/signin`);
    expect(signin.status).toBe(200);
    expect(await signin.text()).toContain('/assets/app.css');
    for (const asset of ['/assets/app.css', '/assets/app.js', '/assets/htmx/htmx.min.js'])
      expect([asset, (await fetch(url + asset)).status]).toEqual([asset, 200]);
  }, 120_000);
});

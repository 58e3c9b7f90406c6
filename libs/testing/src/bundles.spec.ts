import { spawnSync } from 'node:child_process';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// `llmgw <role>` runs dist/apps/<role>/main.js only while it matches the sources
// it was built from (tools/scripts/build-app.cjs); a stale bundle is rebuilt first.
const root = join(__dirname, '../../..');
const bundles = require(join(root, 'tools/scripts/build-app.cjs')) as {
  build(name: string): string;
  freshness(name: string): { fresh: boolean; reason?: string };
};
const manifest = join(root, 'dist/apps/ctl/inputs.json');

describe('role bundles', () => {
  beforeAll(() => bundles.build('ctl'), 120_000);

  it('a fresh build is fresh, and stays so when a source is touched without a change', () => {
    expect(bundles.freshness('ctl')).toEqual({ fresh: true });
    const src = join(root, 'apps/ctl/src/main.ts');
    const earlier = new Date(Date.now() - 60_000); // (a time after the build would make the next build distrust itself)
    utimesSync(src, earlier, earlier);
    expect(bundles.freshness('ctl')).toEqual({ fresh: true });
  });

  it('a bundle whose sources differ from its record is rebuilt before it runs, and says so', () => {
    // As if apps/ctl/src/main.ts had been edited since the build: the record no longer matches it.
    const m = JSON.parse(readFileSync(manifest, 'utf8'));
    m.files['apps/ctl/src/main.ts'].sha256 = '0'.repeat(64);
    m.files['apps/ctl/src/main.ts'].mtimeMs = 1;
    writeFileSync(manifest, JSON.stringify(m));
    expect(bundles.freshness('ctl')).toEqual({ fresh: false, reason: 'apps/ctl/src/main.ts changed' });
    const r = spawnSync(process.execPath, [join(root, 'bin/llmgw.cjs'), 'ctl', '--help'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/llmgw: rebuilt ctl \(apps\/ctl\/src\/main\.ts changed\)/);
    expect(r.stdout).toMatch(/Usage: llmgw ctl/);
    expect(bundles.freshness('ctl')).toEqual({ fresh: true });
  }, 120_000);

  it('a missing source makes the bundle stale', () => {
    const m = JSON.parse(readFileSync(manifest, 'utf8'));
    m.files['apps/ctl/src/no-such-file.ts'] = { size: 1, mtimeMs: 1, sha256: '0'.repeat(64) };
    writeFileSync(manifest, JSON.stringify(m));
    expect(bundles.freshness('ctl')).toEqual({ fresh: false, reason: 'apps/ctl/src/no-such-file.ts is gone' });
    bundles.build('ctl');
    expect(bundles.freshness('ctl')).toEqual({ fresh: true });
  }, 120_000);
});

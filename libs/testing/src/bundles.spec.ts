import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// `llmgw <role>` runs dist/apps/<role>/main.js only while it matches the sources
// it was built from (tools/scripts/build-app.cjs); a stale bundle is rebuilt first.
// This spec edits the bundle's record, so it builds into a directory of its own
// (LLMGW_DIST_DIR, under dist/ so packages and proto/ resolve as from dist/):
// every other process that runs `llmgw ctl` meanwhile, this spec on another Node
// included, keeps using dist/ as it is.
const root = join(__dirname, '../../..');
const bundles = require(join(root, 'tools/scripts/build-app.cjs')) as {
  build(name: string): string;
  freshness(name: string): { fresh: boolean; reason?: string };
};
mkdirSync(join(root, 'dist'), { recursive: true });
const dist = mkdtempSync(join(root, 'dist', '.bundles-spec-'));
const manifest = join(dist, 'apps/ctl/inputs.json');
const before = process.env.LLMGW_DIST_DIR;

describe('role bundles', () => {
  beforeAll(() => {
    process.env.LLMGW_DIST_DIR = dist;
    bundles.build('ctl');
  }, 120_000);
  afterAll(() => {
    if (before === undefined) delete process.env.LLMGW_DIST_DIR;
    else process.env.LLMGW_DIST_DIR = before;
    rmSync(dist, { recursive: true, force: true });
  });

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
    const r = spawnSync(process.execPath, [join(root, 'bin/llmgw.cjs'), 'ctl', '--help'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, LLMGW_DIST_DIR: dist },
    });
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

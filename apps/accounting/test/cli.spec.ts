import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findRepoRoot, spawnRole } from '@llmgw/testing';
import { main } from '../src/main';

const run = promisify(execFile);

describe('llmgw accounting CLI', () => {
  it.each([
    [['--help'], 0],
    [['--config', '/nonexistent/accounting.yaml'], 2],
    [['--port', 'many'], 2],
    [['--bogus'], 2],
  ])('main(%j) exits %d', async (argv, code) => {
    const write = process.stdout.write;
    const ewrite = process.stderr.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      expect(await main(argv as string[])).toBe(code);
    } finally {
      process.stdout.write = write;
      process.stderr.write = ewrite;
    }
  });

  it('runs as a process, logs its listening line with both URLs, and stops cleanly on SIGTERM', async () => {
    const p = await spawnRole('accounting', ['--port', '0', '--admin-port', '0', '--database-url', 'pglite:memory']);
    expect(p.urls.grpc).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ready = await fetch(`${p.urls.admin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await p.stop('SIGTERM')).toBe(0);
  }, 180_000);

  it('exits 1 with one line naming the database (its password hidden) and why when the database cannot be reached at start', async () => {
    const argv = [
      join(findRepoRoot(), 'bin', 'llmgw.cjs'),
      'accounting',
      '--port',
      '0',
      '--admin-port',
      '0',
      '--database-url',
      'postgres://bob:s3cret@127.0.0.1:1/none',
    ];
    const r = await run(process.execPath, argv, { env: { ...process.env, LLMGW_QUIET_BUILD: '1' }, timeout: 120_000 }).then(
      (ok) => ({ code: 0, stderr: ok.stderr }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code, stderr: e.stderr ?? '' }),
    );
    expect(r).toEqual({ code: 1, stderr: 'llmgw accounting: cannot open the database postgres://bob:***@127.0.0.1:1/none: connection refused\n' });
  }, 180_000);
});

import { spawnRole } from '@llmgw/testing';
import { main } from '../src/main';

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
});

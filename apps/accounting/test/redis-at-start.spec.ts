/**
 * A Redis that does not answer when accounting starts does not stop the start
 * (docs/operations.md, "Redis, leader locks and lost dependencies"): a real
 * accounting process whose Redis is behind a fault proxy that refuses starts,
 * listens and answers /readyz 503 "ingest: retrying"; once Redis answers, the
 * ingest makes its consumer group on the usage stream and /readyz is 200.
 */
import { dropKeyPrefix, spawnRole, startFaultProxy, waitUntil, type FaultProxy, type SpawnedRole } from '@llmgw/testing';
import { Redis } from 'ioredis';

const prefix = `llmgw-test:acct-redis-start:${process.pid}:`;

describe('accounting started while its Redis refuses', () => {
  let proxy: FaultProxy;
  let acct: SpawnedRole | undefined;
  const redis = new Redis({ host: '127.0.0.1', port: 6379 });

  afterAll(async () => {
    await acct?.stop();
    await proxy?.close();
    await dropKeyPrefix(redis, prefix);
    await redis.quit();
  });

  it('starts, says why it is not ready, and ingests once Redis answers', async () => {
    proxy = await startFaultProxy({ target: '127.0.0.1:6379', mode: { kind: 'refuse' } });
    acct = await spawnRole(
      'accounting',
      ['--port', '0', '--admin-port', '0', '--database-url', 'pglite:memory', '--redis-url', `redis://127.0.0.1:${proxy.port}`, '--key-prefix', prefix],
      { timeoutMs: 120_000 },
    );
    const readyz = async () => {
      const r = await fetch(`${acct!.urls.admin}/readyz`);
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    expect(await readyz()).toEqual({ status: 503, body: { status: 'degraded', database: 'ok', ingest: 'retrying' } });

    await proxy.set({ kind: 'pass' });
    await waitUntil(async () => (await readyz()).status === 200, 'accounting ready once Redis answers', { timeoutMs: 30_000, everyMs: 200 });
    // The usage stream is `<prefix>usage` (docs/accounting.md).
    const groups = (await redis.xinfo('GROUPS', `${prefix}usage`)) as unknown[][];
    expect(groups.map((g) => g[1])).toEqual(['accounting']);
    expect(acct.proc.exitCode).toBeNull();
  }, 180_000);
});

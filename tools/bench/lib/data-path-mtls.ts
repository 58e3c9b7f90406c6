/**
 * `tools/bench/data-path.ts --mtls`: a second admission and accounting serving mTLS with role
 * checks (docs/security.md), and a router calling both with its role certificate, measured
 * beside the plaintext router.
 */
import { spawnRole, testPki, type SpawnedRole } from '@llmgw/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QUIET } from './open-loop';

export async function startMtlsRouter(o: {
  dir: string;
  endpoints: object[];
  databaseUrl: string;
  prefix: string;
  /** The plaintext router's configuration, whose links this one secures. */
  base: Record<string, unknown>;
  /** Every spawned process goes here, for the bench to stop. */
  procs: SpawnedRole[];
  /** How the measured routers besides the main one are spawned. */
  router: Parameters<typeof spawnRole>[2];
}): Promise<{ name: string; url: string; pid: number; needsKey: boolean }> {
  const pki = await testPki();
  const admTlsCfg = join(o.dir, 'admission-tls.yaml');
  writeFileSync(admTlsCfg, JSON.stringify({ listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', endpoints: o.endpoints, tls: pki.serverTls() }));
  const accTlsCfg = join(o.dir, 'accounting-tls.yaml');
  writeFileSync(
    accTlsCfg,
    JSON.stringify({
      listen: '127.0.0.1:0',
      admin_listen: '127.0.0.1:0',
      database_url: o.databaseUrl,
      redis_url: 'redis://127.0.0.1:6379',
      key_prefix: o.prefix,
      ingest: { consumer: 'bench-tls' },
      tls: pki.serverTls(),
    }),
  );
  const quiet = { ...QUIET, timeoutMs: 180_000 };
  const [admTls, accTls] = await Promise.all([spawnRole('admission', ['--config', admTlsCfg], quiet), spawnRole('accounting', ['--config', accTlsCfg], quiet)]);
  o.procs.push(admTls, accTls);
  const routerTls = pki.clientTlsFiles('router');
  const file = join(o.dir, 'router-mtls.yaml');
  writeFileSync(
    file,
    JSON.stringify({
      ...o.base,
      tenancy: { ...(o.base.tenancy as object), accounting_address: new URL(accTls.urls.grpc ?? accTls.url).host, accounting_tls: routerTls },
      admission: { mode: 'remote', address: new URL(admTls.url).host, tls: routerTls },
    }),
  );
  const r = await spawnRole('router', ['--config', file, '--port', '0', '--admin-port', '0'], o.router);
  o.procs.push(r);
  console.log(`router (mTLS links) ${r.url}: the same configuration, admission ${new URL(admTls.url).host} and accounting over mTLS (role router)`);
  return { name: 'router (mTLS links)', url: r.url, pid: r.pid, needsKey: true };
}

/**
 * A PostgreSQL outage under load through two routers (docs/accounting.md,
 * "When accounting is unreachable"; docs/operations.md on database faults):
 * real processes — a private PostgreSQL (its own data directory and port),
 * accounting on it with Redis, one sim-engine, two routers with API keys —
 * and a bounded closed loop of requests on a key used before the outage and
 * one never used, while the database is hung (SIGSTOP), refused (stopped),
 * stopped while hung, and back. No request on those keys fails, every 200
 * has exactly one usage row once the ledger caught up, no process exits,
 * `ctl key create` during the hang fails with the database named and leaves
 * no key (a retry with its idempotency key returns one), and accounting's
 * `/readyz` answers 503 while the database hangs, ended by its ping's own timeout (`database_ping_timeout`).
 */
import type { AccountingMethod } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import {
  TenancyAdmin,
  backOffAfterRefusal,
  dropKeyPrefix,
  findRepoRoot,
  grpcAddress,
  ledgerDrained as drained,
  metricValue,
  spawnRole,
  startAccountingProcess,
  startTenancyRouters,
  type SpawnedRole,
  waitUntil,
  writeTenancyRouterConfig,
} from '@llmgw/testing';
import Redis from 'ioredis';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { havePostgresBinaries, hungReadyz, readyz as readyzOf, startPrivatePostgres, type PrivatePostgres, type Readyz } from './private-postgres';

jest.setTimeout(240_000);

/** ctl's per-call deadline during the hang (its `--timeout`). */
const CTL_DEADLINE_MS = 4000;
const prefix = `test:${randomUUID()}:`;
const dir = mkdtempSync(join(tmpdir(), 'llmgw-pg-outage-'));

let pgs: PrivatePostgres;
let redis: Redis;
let sim: SpawnedRole;
let acct: SpawnedRole;
const routers: SpawnedRole[] = [];
let tenancy: TenancyAdmin;
let projectId: string;

const admin = <T>(m: AccountingMethod, req: object) => tenancy.call<T>(m, req);

function alive(p: SpawnedRole): boolean {
  return p.proc.exitCode === null && p.proc.signalCode === null;
}
const everyone = () => [acct, sim, ...routers];
const exited = () =>
  everyone()
    .filter((p) => !alive(p))
    .map((p) => `pid ${p.pid} (${p.url}): ${p.proc.exitCode ?? p.proc.signalCode}`);

const readyz = () => readyzOf(acct.urls.admin);
const ready = () => waitUntil(async () => (await readyz().catch(() => undefined))?.status === 200, 'accounting ready', { timeoutMs: 60_000, everyMs: 100 });

function ctl(args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const root = findRepoRoot();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'bin', 'llmgw.cjs'), 'ctl', ...args],
      { cwd: root, env: { ...process.env, LLMGW_QUIET_BUILD: '1' }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const e = err as { code?: number; signal?: string } | null;
        resolve({ code: e ? (e.signal ?? Number(e.code ?? 1)) : 0, stdout, stderr });
      },
    );
  });
}

async function sql<T>(q: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: pgs.url });
  await c.connect();
  try {
    return (await c.query(q, params)).rows as T[];
  } finally {
    await c.end();
  }
}

const ledgerDrained = () => drained(redis, prefix);

interface Outcome {
  phase: string;
  router: number;
  key: string;
  id: string;
  status: number | string;
}

async function chat(router: number, key: string, requestId: string): Promise<number> {
  const res = await fetch(`${routers[router].url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ model: 'm', max_tokens: 4, messages: [{ role: 'user', content: 'hello' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

const maybe = havePostgresBinaries() ? describe : describe.skip;

maybe('a private PostgreSQL hung, refused and stopped while hung under load through two routers', () => {
  beforeAll(async () => {
    pgs = await startPrivatePostgres();
    redis = new Redis({ host: '127.0.0.1', port: 6379 });
    [sim, acct] = await Promise.all([
      spawnRole('sim-engine', ['--port', '0', '--model', 'm', '--prefill-tps', '0', '--decode-tps', '0', '--log-level', 'warn']),
      startAccountingProcess({ databaseUrl: pgs.url, keyPrefix: prefix, consumer: 'acct-pg-outage', args: ['--log-level', 'warn'] }),
      ctl(['--help']), // builds ctl's bundle now, not during the hang
    ]);
    tenancy = await new TenancyAdmin(grpcAddress(acct), 'pg-outage-test', 10_000).seedProject();
    projectId = tenancy.projectId;
    // A short cache TTL: during the outage every cached key goes stale and is refreshed against a dead database.
    const config = writeTenancyRouterConfig(join(dir, 'router.yaml'), {
      accountingAddress: grpcAddress(acct),
      keyPrefix: prefix,
      tenancy: ['  cache_ttl: 1s'],
    });
    routers.push(...(await startTenancyRouters(2, config, sim.url, ['--log-level', 'warn'])));
  }, 400_000);

  afterAll(async () => {
    tenancy?.close();
    pgs?.resume();
    await Promise.all(
      everyone()
        .filter(Boolean)
        .map((p) => p.stop().catch(() => undefined)),
    );
    if (redis) {
      await dropKeyPrefix(redis, prefix);
      await redis.quit();
    }
    await pgs?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('0 failed requests on existing keys (used or not), a usage row per 200, no exit, no orphan key from ctl, /readyz 503 within the ping timeout', async () => {
    const mk = async (name: string) => (await tenancy.newKey(name)).secret;
    const used = await mk('used');
    const unused = await mk('never-used');
    // "used": through both routers before the outage; "never-used": not once before it.
    expect(await chat(0, used, randomUUID())).toBe(200);
    expect(await chat(1, used, randomUUID())).toBe(200);

    // --- load: 4 workers in a closed loop, each on its own router, alternating the keys.
    let phase = 'before';
    let stop = false;
    const outcomes: Outcome[] = [];
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const router = w % 2;
        const at = phase;
        // The never-used key's first request comes during the hang.
        const [name, key] = at !== 'before' && (i + (w >> 1)) % 2 ? ['never-used', unused] : ['used', used];
        const id = randomUUID();
        let status: number | string;
        try {
          status = await chat(router, key, id);
        } catch (e) {
          status = `fetch failed: ${(e as Error).message}`;
          await backOffAfterRefusal();
        }
        outcomes.push({ phase: at, router, key: name, id, status });
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    /** Waits until `n` more requests were answered (however slow the machine), in phase `p`. */
    const served = (n: number) => {
      const target = outcomes.length + n;
      return waitUntil(() => outcomes.length >= target, `${n} more requests answered (${phase})`, { timeoutMs: 90_000, everyMs: 20 });
    };
    const readyzDuringOutage: Array<[string, Readyz]> = [];

    let ctlResult: { code: number | string; stdout: string; stderr: string } | undefined;
    try {
      await served(8);

      // --- hung: every Postgres process SIGSTOPped; connections stay open, nothing answers.
      phase = 'hung';
      pgs.hang();
      try {
        readyzDuringOutage.push(['hung', await readyz()]);
        const ctlRun = ctl([
          '--accounting',
          new URL(acct.urls.grpc).host,
          '--timeout',
          String(CTL_DEADLINE_MS),
          'key',
          'create',
          '--project',
          projectId,
          '--name',
          'ctl-during-hang',
        ]);
        await served(12);
        ctlResult = await ctlRun;
        readyzDuringOutage.push(['hung, after ctl', await readyz()]);
      } finally {
        pgs.resume();
      }
      phase = 'after hang';
      await ready();
      await served(4);

      // --- refused: a fast shutdown; the port is closed.
      phase = 'refused';
      await pgs.stop();
      readyzDuringOutage.push(['refused', await readyz()]);
      await served(12);
      await pgs.start();
      phase = 'after refused';
      await ready();
      await served(4);

      // --- stopped while hung: SIGSTOP, then a fast shutdown that lands when it resumes.
      phase = 'stopped while hung';
      pgs.hang();
      const postmaster = pgs.pid()!;
      try {
        await served(8);
        readyzDuringOutage.push(['stopped while hung', await readyz()]);
        process.kill(postmaster, 'SIGINT');
      } finally {
        pgs.resume();
      }
      await waitUntil(() => pgs.pid() === undefined, 'postgres to stop', { timeoutMs: 30_000, everyMs: 50 });
      await served(8);
      await pgs.start();
      phase = 'back';
      await ready();
      await served(8);
    } finally {
      stop = true;
      await Promise.all(workers);
      pgs.resume();
    }

    // 0 failed requests on existing keys, in every phase, through both routers.
    expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
    const phases = new Set(outcomes.map((o) => o.phase));
    for (const p of ['hung', 'refused', 'stopped while hung']) expect(phases).toContain(p);
    for (const r of [0, 1])
      for (const k of ['used', 'never-used']) expect(outcomes.some((o) => o.phase === 'hung' && o.router === r && o.key === k)).toBe(true);

    // The outage reached the routers: ResolveKey failed on each, and the never-used key was answered from its published record.
    for (const r of routers) {
      expect(await metricValue(r.urls.admin, 'llmgw_key_resolve_total', { result: 'failed' })).toBeGreaterThan(0);
      expect(await metricValue(r.urls.admin, 'llmgw_key_cache_total', { result: 'record' })).toBeGreaterThan(0);
    }
    expect(outcomes.some((o) => o.phase === 'before' && o.key === 'never-used')).toBe(false);

    // /readyz answered 503 while the database was out; a hung one ended by the ping's 500 ms (its default).
    expect(readyzDuringOutage).toEqual([
      ['hung', hungReadyz(500)],
      ['hung, after ctl', hungReadyz(500)],
      ['refused', { status: 503, database: 'unreachable', reason: expect.stringMatching(/^database unavailable \(/) }],
      ['stopped while hung', hungReadyz(500)],
    ]);

    // No llmgw process exited.
    expect(exited()).toEqual([]);

    // ctl during the hang: failed within its deadline (the service's answer, not the deadline), naming the database.
    expect(ctlResult).toBeDefined();
    expect(ctlResult!.code).toBe(1);
    expect(ctlResult!.stderr).toMatch(/accounting at .* answered: database unavailable/);
    expect(ctlResult!.stdout).not.toMatch(/sk-llmgw-/);
    const idem = /--idempotency-key (\S+)/.exec(ctlResult!.stderr)?.[1];
    expect(idem).toBeDefined();

    // Every 200 has exactly one usage row once the ledger caught up.
    await waitUntil(ledgerDrained, 'the usage stream to drain', { timeoutMs: 60_000, everyMs: 100 });
    const ids = outcomes.map((o) => o.id);
    const rows = await sql<{ request_id: string; n: number }>(
      'select request_id, count(*)::int as n from usage where request_id = any($1) group by request_id',
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.request_id, r.n]));
    expect(ids.filter((id) => !byId.has(id))).toEqual([]);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);

    // No key behind the failed ctl call; its retry with the printed idempotency key makes it once.
    const keyNames = async () =>
      (await admin<accountingV1.ListKeysResponse__Output>('ListKeys', { project: projectId, includeRevoked: true })).keys.map((k) => k.name).sort();
    expect(await keyNames()).toEqual(['never-used', 'used']);
    const retry = await ctl([
      '--accounting',
      new URL(acct.urls.grpc).host,
      '--idempotency-key',
      idem!,
      '--json',
      'key',
      'create',
      '--project',
      projectId,
      '--name',
      'ctl-during-hang',
    ]);
    expect(retry.code).toBe(0);
    expect(JSON.parse(retry.stdout).secret).toMatch(/^sk-llmgw-/);
    expect(await keyNames()).toEqual(['ctl-during-hang', 'never-used', 'used']);

    expect(exited()).toEqual([]);
    expect(acct.output().join('\n')).not.toMatch(/Unhandled 'error' event/);
    const n = (p: string) => outcomes.filter((o) => o.phase === p).length;
    process.stderr.write(
      `pg-outage-routers: ${outcomes.length} requests, all 200 (hung ${n('hung')}, refused ${n('refused')}, stopped while hung ${n('stopped while hung')}); ${rows.length} usage rows\n`,
    );
  });
});

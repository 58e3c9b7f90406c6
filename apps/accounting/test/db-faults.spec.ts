/**
 * Database faults are outages, never crashes (docs/operations.md, "What
 * happens when the database …"): a real accounting process on a private
 * PostgreSQL that is hung (SIGSTOP), refused (stopped) and stopped while
 * hung. Accounting never exits, /readyz answers 503 (ended by its ping's
 * timeout while the database hangs), admin calls
 * answer UNAVAILABLE naming the database, `ctl key create` during the hang
 * fails within its deadline and leaves no key, a retry with the same
 * idempotency key returns one key, and everything works after recovery.
 */
import { AccountingClient, type AccountingMethod } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import { findRepoRoot, spawnRole, type SpawnedRole, waitUntil } from '@llmgw/testing';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { havePostgresBinaries, hungReadyz, readyz as readyzOf, startPrivatePostgres, type PrivatePostgres } from './private-postgres';

jest.setTimeout(120_000);

const CALL_DEADLINE_MS = 3000;
const dir = mkdtempSync(join(tmpdir(), 'llmgw-dbfault-'));
let pgs: PrivatePostgres;
let acct: SpawnedRole;
let client: AccountingClient;
let projectId: string;

const admin = <T>(m: AccountingMethod, req: object, idempotencyKey?: string) => client.call<T>(m, req, { actor: 'fault-test', idempotencyKey });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
  );

const readyz = () => readyzOf(acct.urls.admin);
/** /readyz of a stopped database: 503, unreachable, and why. */
const refusedReadyz = { status: 503, database: 'unreachable', reason: expect.stringMatching(/^database unavailable \(/) };

function alive(): boolean {
  return acct.proc.exitCode === null && acct.proc.signalCode === null;
}

function ctl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const root = findRepoRoot();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'bin', 'llmgw.cjs'), 'ctl', ...args],
      { cwd: root, env: { ...process.env, LLMGW_QUIET_BUILD: '1' } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

const maybe = havePostgresBinaries() ? describe : describe.skip;

maybe('accounting on a private PostgreSQL that hangs, refuses and stops while hung', () => {
  beforeAll(async () => {
    writeFileSync(
      join(dir, 'accounting.yaml'),
      'database_connect_timeout: 1s\ndatabase_statement_timeout: 2s\ndatabase_ping_timeout: 300ms\nrollup_interval: 1h\nreseed_interval: 1h\n',
    );
    pgs = await startPrivatePostgres();
    [acct] = await Promise.all([
      spawnRole('accounting', ['--config', join(dir, 'accounting.yaml'), '--port', '0', '--admin-port', '0', '--database-url', pgs.url]),
      ctl(['--help']), // builds ctl's bundle now, not during the hang
    ]);
    client = new AccountingClient({ address: new URL(acct.urls.grpc).host, callTimeoutMs: CALL_DEADLINE_MS });
    await admin('CreateOrg', { name: 'acme' });
    await admin('CreateTeam', { org: 'acme', name: 'ml' });
    projectId = (await admin<accountingV1.Project__Output>('CreateProject', { team: 'ml', name: 'chat' })).id;
  }, 400_000);

  afterAll(async () => {
    client?.close();
    pgs?.resume();
    await acct?.stop().catch(() => undefined);
    await pgs?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const keyNames = async () =>
    (await admin<accountingV1.ListKeysResponse__Output>('ListKeys', { project: projectId, includeRevoked: true })).keys.map((k) => k.name);

  let ctlKey: string | undefined;

  it('hung: /readyz 503 within the ping timeout, admin calls UNAVAILABLE naming the database, ctl key create fails in time and leaves no key', async () => {
    pgs.hang();
    try {
      expect(await readyz()).toEqual(hungReadyz(300));
      expect(await failure(admin('CreateOrg', { name: 'during-hang' }))).toEqual({
        code: 'LLMGW_ERR_UNAVAILABLE',
        message: expect.stringMatching(/^database unavailable \(/),
      });
      expect(await failure(admin('CreateKey', { project: projectId, name: 'retried' }, 'fault-retry-1'))).toMatchObject({
        code: 'LLMGW_ERR_UNAVAILABLE',
        message: expect.stringMatching(/^database unavailable/),
      });
      const r = await ctl([
        '--accounting',
        new URL(acct.urls.grpc).host,
        '--timeout',
        String(CALL_DEADLINE_MS),
        'key',
        'create',
        '--project',
        projectId,
        '--name',
        'ctl-during-hang',
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/accounting at .* answered: database unavailable/);
      expect(r.stderr).not.toMatch(/is it running/);
      expect(r.stdout).not.toMatch(/sk-llmgw-/);
      ctlKey = /--idempotency-key (\S+)/.exec(r.stderr)?.[1];
      expect(ctlKey).toBeDefined();
      expect(await readyz()).toEqual(hungReadyz(300));
      expect(alive()).toBe(true);
    } finally {
      pgs.resume();
    }
    await waitUntil(async () => (await readyz()).status === 200, 'accounting ready after the hang', { timeoutMs: 30_000 });
    expect(alive()).toBe(true);
    // Nothing the hung calls started was committed when the database came back.
    expect(await keyNames()).toEqual([]);
    const orgs = await admin<accountingV1.ListOrgsResponse__Output>('ListOrgs', {});
    expect(orgs.orgs.map((o) => o.name)).toEqual(['acme']);
    // The retry with the same idempotency key creates the key once and returns it again.
    const a = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: projectId, name: 'retried' }, 'fault-retry-1');
    const b = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: projectId, name: 'retried' }, 'fault-retry-1');
    expect(b.key!.id).toBe(a.key!.id);
    expect(b.secret).toBe(a.secret);
    expect(await keyNames()).toEqual(['retried']);
    // ctl repeated with the key it printed: the key is made once, and the repeat returns it with its secret.
    const args = [
      '--accounting',
      new URL(acct.urls.grpc).host,
      '--idempotency-key',
      ctlKey!,
      '--json',
      'key',
      'create',
      '--project',
      projectId,
      '--name',
      'ctl-during-hang',
    ];
    const first = await ctl(args);
    const second = await ctl(args);
    expect([first.code, second.code]).toEqual([0, 0]);
    const [k1, k2] = [JSON.parse(first.stdout), JSON.parse(second.stdout)];
    expect(k2.id).toBe(k1.id);
    expect(k2.secret).toBe(k1.secret);
    expect((await keyNames()).sort()).toEqual(['ctl-during-hang', 'retried']);
  });

  it('refused: UNAVAILABLE "database unavailable (connection refused)", /readyz 503; back when it starts', async () => {
    await pgs.stop();
    expect(await failure(admin('CreateOrg', { name: 'refused' }))).toEqual({
      code: 'LLMGW_ERR_UNAVAILABLE',
      message: expect.stringMatching(/^database unavailable \((connection refused|connection lost|the database is shutting down)/),
    });
    expect(await failure(admin('ListOrgs', {}))).toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE', message: expect.stringMatching(/^database unavailable/) });
    expect(await readyz()).toEqual(refusedReadyz);
    expect(alive()).toBe(true);
    await pgs.start();
    await waitUntil(async () => (await readyz()).status === 200, 'accounting ready after the restart', { timeoutMs: 30_000 });
    await expect(admin('CreateOrg', { name: 'after-refused' })).resolves.toMatchObject({ name: 'after-refused' });
  });

  it('stopped while hung with calls in flight: the calls answer UNAVAILABLE, accounting keeps running and recovers', async () => {
    pgs.hang();
    let inflight: Array<Promise<unknown>> = [];
    try {
      inflight = [
        admin('ListOrgs', {}),
        admin('CreateOrg', { name: 'in-flight' }),
        admin('ListKeys', { project: projectId }),
        admin('GetProject', { ref: projectId }),
      ].map(failure);
      expect(await readyz()).toEqual(hungReadyz(300)); // the calls above have taken connections by now
    } finally {
      await pgs.stopWhileHung(); // fast shutdown; no backend resumes before it is told to end
    }
    await waitUntil(() => pgs.pid() === undefined, 'postgres to stop', { timeoutMs: 30_000 });
    for (const r of await Promise.all(inflight))
      expect(r).toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE', message: expect.stringMatching(/^database unavailable/) });
    expect(await readyz()).toEqual(refusedReadyz);
    expect(alive()).toBe(true);
    await pgs.start();
    await waitUntil(async () => (await readyz()).status === 200, 'accounting ready after the restart', { timeoutMs: 30_000 });
    const k = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: projectId, name: 'after-recovery' });
    expect(k.secret).toMatch(/^sk-llmgw-/);
    expect((await keyNames()).sort()).toEqual(['after-recovery', 'ctl-during-hang', 'retried']);
    expect(alive()).toBe(true);
    expect(acct.output().join('\n')).not.toMatch(/Unhandled 'error' event/);
  });
});

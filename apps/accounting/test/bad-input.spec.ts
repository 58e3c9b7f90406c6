/**
 * Malformed admin calls get INVALID_ARGUMENT naming the field (never INTERNAL,
 * never the input echoed unbounded), key names are unique per project, and
 * admin writes are idempotent by `llmgw-idempotency-key`
 * (docs/accounting.md, "Names" and "Retries and request ids").
 */
import { AccountingClient, type AccountingMethod } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import { createLogger } from '@llmgw/observability';
import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger } from '@llmgw/stores';
import { Writable } from 'node:stream';
import { start, type RunningAccounting } from '../src/server';
import { TenancyStore } from '../src/tenancy-store';

const quiet = createLogger({ service: 'accounting-test', level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

let acc: RunningAccounting;
let c: AccountingClient;
let projectId: string;

beforeAll(async () => {
  acc = await start({
    config: { listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', database_url: 'pglite:memory', rollup_interval: 3_600_000, reseed_interval: 3_600_000 },
    stores: { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() },
    log: quiet,
  });
  c = new AccountingClient({ address: acc.url });
  await admin('CreateOrg', { name: 'acme' });
  await admin('CreateTeam', { org: 'acme', name: 'ml' });
  projectId = (await admin<accountingV1.Project__Output>('CreateProject', { team: 'ml', name: 'chat' })).id;
}, 120_000);

afterAll(async () => {
  c?.close();
  await acc?.close();
});

function admin<T>(m: AccountingMethod, req: object, idempotencyKey?: string): Promise<T> {
  return c.call<T>(m, req, { actor: 'test', idempotencyKey });
}

async function refused(m: AccountingMethod, req: object): Promise<{ code: string; message: string }> {
  const e = await admin(m, req).then(
    () => undefined,
    (err: { code: string; message: string }) => err,
  );
  if (!e) throw new Error(`${m} was accepted`);
  return { code: e.code, message: e.message };
}

const I64_MAX = 9223372036854775807n;
const I64_MIN = -9223372036854775808n;

describe('bad input at the accounting admin API', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['ESC sequence', 'x\u001b[2J'],
    ['DEL', 'x\u007f'],
    ['SOH', '\u0001x'],
  ])('a name with %s is refused everywhere a name is stored, naming the field', async (_what, bad) => {
    for (const [m, req, field] of [
      ['CreateOrg', { name: bad }, 'name'],
      ['CreateTeam', { org: 'acme', name: bad }, 'name'],
      ['CreateProject', { team: 'ml', name: bad }, 'name'],
      ['CreateKey', { project: projectId, name: bad }, 'name'],
      ['RenameOrg', { ref: 'acme', name: bad }, 'name'],
      ['CreateProject', { team: 'ml', name: 'ok', band: bad }, 'band'],
      ['CreateKey', { project: projectId, name: 'ok', routingProfile: bad }, 'routing_profile'],
    ] as const) {
      expect(await refused(m, req)).toEqual({ code: 'LLMGW_ERR_INVALID_ARGUMENT', message: `${field} must not contain control characters` });
    }
    // …and where one is looked up.
    expect(await refused('GetOrg', { ref: bad })).toEqual({ code: 'LLMGW_ERR_INVALID_ARGUMENT', message: 'ref must not contain control characters' });
    expect(await refused('ListKeys', { project: bad })).toEqual({ code: 'LLMGW_ERR_INVALID_ARGUMENT', message: 'project must not contain control characters' });
    expect(await refused('SetLimit', { scope: { scopeType: 'team', scope: bad }, limit: {} })).toMatchObject({
      message: 'scope must not contain control characters',
    });
    expect(await refused('ListAudit', { targetId: bad })).toMatchObject({ message: 'target_id must not contain control characters' });
    const orgs = await admin<accountingV1.ListOrgsResponse__Output>('ListOrgs', {});
    expect(orgs.orgs.map((o) => o.name)).toEqual(['acme']);
  });

  it('a huge reference is refused by length, and a NOT_FOUND repeats at most 64 characters of it', async () => {
    const e = await refused('GetOrg', { ref: 'x'.repeat(100_000) });
    expect(e).toEqual({ code: 'LLMGW_ERR_INVALID_ARGUMENT', message: 'ref must be at most 200 characters (got 100000)' });
    const nf = await refused('GetOrg', { ref: 'y'.repeat(150) });
    expect(nf).toEqual({ code: 'LLMGW_ERR_NOT_FOUND', message: `organization "${'y'.repeat(64)}…" not found` });
  });

  it('int64 extremes in times are refused naming the field', async () => {
    for (const v of [I64_MAX, I64_MIN, 2n ** 53n]) {
      expect(await refused('CreateKey', { project: projectId, name: 'exp', expiresAtMs: v.toString() })).toMatchObject({
        code: 'LLMGW_ERR_INVALID_ARGUMENT',
        message: expect.stringMatching(/^expires_at_ms must be an integer/),
      });
      expect(await refused('QueryUsage', { fromMs: v.toString() })).toMatchObject({
        code: 'LLMGW_ERR_INVALID_ARGUMENT',
        message: expect.stringMatching(/^from_ms must be an integer/),
      });
      expect(await refused('QueryUsage', { toMs: v.toString() })).toMatchObject({ message: expect.stringMatching(/^to_ms must be an integer/) });
      expect(await refused('ListAudit', { sinceMs: v.toString() })).toMatchObject({ message: expect.stringMatching(/^since_ms must be an integer/) });
    }
    expect(await refused('CreateKey', { project: projectId, name: 'neg', expiresAtMs: '-5' })).toMatchObject({
      message: expect.stringMatching(/^expires_at_ms must be an integer from 0/),
    });
    // The largest safe values are still answered (nothing INTERNAL).
    await expect(admin('QueryUsage', { fromMs: String(-Number.MAX_SAFE_INTEGER), toMs: String(Number.MAX_SAFE_INTEGER) })).resolves.toBeDefined();
  });

  it('SetLimit rpm/tpm above the integer column are refused naming the field', async () => {
    expect(await refused('SetLimit', { scope: { scopeType: 'team', scope: 'ml' }, limit: { hasRpm: true, rpm: 2 ** 31 } })).toEqual({
      code: 'LLMGW_ERR_INVALID_ARGUMENT',
      message: 'limit.rpm must be an integer from 0 to 2147483647',
    });
    expect(await refused('SetLimit', { scope: { scopeType: 'team', scope: 'ml' }, limit: { hasTpm: true, tpm: 2 ** 52 } })).toEqual({
      code: 'LLMGW_ERR_INVALID_ARGUMENT',
      message: 'limit.tpm must be an integer from 0 to 2147483647',
    });
    expect(
      await refused('SetLimit', { scope: { scopeType: 'team', scope: 'ml' }, limit: { hasBudget: true, budgetMicros: I64_MAX.toString() } }),
    ).toMatchObject({ message: expect.stringMatching(/^limit\.budget_micros must be/) });
    expect(
      await refused('SetLimit', { scope: { scopeType: 'team', scope: 'ml' }, limit: { modelsRestricted: true, allowedModels: ['ok', 'b\u0000d'] } }),
    ).toMatchObject({ message: 'limit.allowed_models must not contain control characters' });
    const l = await admin<accountingV1.Limit__Output>('SetLimit', { scope: { scopeType: 'team', scope: 'ml' }, limit: { hasRpm: true, rpm: 2 ** 31 - 1 } });
    expect(l.rpm).toBe(2 ** 31 - 1);
  });
});

describe('key names and idempotent writes', () => {
  it('key names are unique per project: a second one is ALREADY_EXISTS', async () => {
    await admin('CreateKey', { project: projectId, name: 'ci' });
    expect(await refused('CreateKey', { project: projectId, name: 'ci' })).toEqual({
      code: 'LLMGW_ERR_ALREADY_EXISTS',
      message: `key "ci" in project ${projectId} already exists`,
    });
    const other = await admin<accountingV1.Project__Output>('CreateProject', { team: 'ml', name: 'other' });
    await expect(admin('CreateKey', { project: other.id, name: 'ci' })).resolves.toBeDefined();
  });

  it('a repeated idempotency key returns the first result: the same key and secret, one row, one audit event', async () => {
    const first = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: projectId, name: 'once' }, 'req-once-1');
    const again = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: projectId, name: 'once' }, 'req-once-1');
    expect(again.key!.id).toBe(first.key!.id);
    expect(again.secret).toBe(first.secret);
    const keys = await admin<accountingV1.ListKeysResponse__Output>('ListKeys', { project: projectId });
    expect(keys.keys.filter((k) => k.name === 'once')).toHaveLength(1);
    const audit = await admin<accountingV1.ListAuditResponse__Output>('ListAudit', { targetId: first.key!.id });
    expect(audit.events.map((e) => e.action)).toEqual(['key.create']);
    // Other writes too; a key reused for another method is refused.
    const o1 = await admin<accountingV1.Org__Output>('CreateOrg', { name: 'globex' }, 'req-org-1');
    const o2 = await admin<accountingV1.Org__Output>('CreateOrg', { name: 'globex' }, 'req-org-1');
    expect(o2.id).toBe(o1.id);
    expect(await c.call('CreateTeam', { org: 'globex', name: 't' }, { idempotencyKey: 'req-org-1' }).catch((e: { message: string }) => e.message)).toBe(
      'this idempotency key was already used for CreateOrg; use a new one',
    );
  });

  it('after a restart the secret cannot be shown again: the repeat names the key to revoke', async () => {
    const first = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: projectId, name: 'sealed' }, 'req-sealed-1');
    // A second TenancyStore on the same database stands for a restarted process (a new in-memory sealing key).
    const restarted = new TenancyStore(acc.db.db, new MemoryKeyCacheBus());
    const e = await restarted
      .createKey('test', projectId, { name: 'sealed' }, { requestKey: 'req-sealed-1' })
      .catch((x: { code: string; message: string }) => x);
    expect(e).toMatchObject({ code: 'LLMGW_ERR_FAILED_PRECONDITION', message: expect.stringContaining(`key ${first.key!.id}`) });
  });

  it('a malformed idempotency key is refused', async () => {
    const md = new (await import('@grpc/grpc-js')).Metadata();
    md.set('llmgw-idempotency-key', 'has spaces');
    const e = await c.call('CreateOrg', { name: 'x1' }, { metadata: md }).catch((x: { code: string; message: string }) => x);
    expect(e).toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT', message: expect.stringMatching(/^llmgw-idempotency-key must be/) });
  });
});

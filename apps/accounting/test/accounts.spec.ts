import { AccountingClient } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import { createTestDatabase } from '@llmgw/db/testing';
import { createLogger } from '@llmgw/observability';
import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger } from '@llmgw/stores';
import { hashApiKey } from '@llmgw/tenancy';
import { Writable } from 'node:stream';
import { ensureDemoTenant } from '../src/bootstrap';
import { ensureFirstAdmin } from '../src/accounts/bootstrap';
import { start, type RunningAccounting } from '../src/server';

const quiet = createLogger({ service: 'accounts-test', level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

let clockAhead = 0;
const now = () => Date.now() + clockAhead;

// The same contract on the embedded database and on PostgreSQL (docs/portal.md).
describe.each([
  ['pglite', async () => ({ url: 'pglite:memory', drop: async () => {} })],
  ['postgres', () => createTestDatabase('llmgw_portal')],
])('accounts on %s', (_name, makeDb) => {
  let acc: RunningAccounting;
  let c: AccountingClient;
  let drop: () => Promise<void>;
  const call = <T>(m: keyof accountingV1.AccountsClient & string, req: object, actor = 'op-1') => c.account<T>(m, req, { actor });
  const err = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a refusal');
      },
      (e: Error & { code?: string }) => e,
    );

  beforeAll(async () => {
    const db = await makeDb();
    drop = db.drop;
    acc = await start({
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        database_url: db.url,
        rollup_interval: 3_600_000,
        reseed_interval: 3_600_000,
        accounts: { signin_attempts_per_account: 3, session_idle: 60_000 },
      },
      stores: { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() },
      log: quiet,
      now,
    });
    c = new AccountingClient({ address: acc.url });
    await ensureDemoTenant(acc.tenancy);
  });
  afterAll(async () => {
    c?.close();
    await acc?.close();
    await drop?.();
  });

  it('sign-up waits for approval; sign-in then gives a session; sign-out ends it', async () => {
    const a = await call<accountingV1.Account__Output>('Signup', { email: 'Ann@Example.com', name: 'Ann', password: 'correct horse battery' });
    expect(a).toMatchObject({ email: 'ann@example.com', status: 'pending', role: 'user' });
    expect((await err(call('SignIn', { email: 'ann@example.com', password: 'correct horse battery', address: '1.1.1.1' }))).message).toMatch(
      /waits for an operator/,
    );
    const approved = await call<accountingV1.UpdateAccountResponse__Output>('UpdateAccount', { ref: 'ann@example.com', action: 'approve', project: 'demo' });
    expect(approved.account).toMatchObject({ status: 'active' });
    const s1 = await call<accountingV1.SignInResponse__Output>('SignIn', { email: 'ann@example.com', password: 'correct horse battery', address: '1.1.1.1' });
    // A new id on every sign-in; the previous session given is ended.
    const s2 = await call<accountingV1.SignInResponse__Output>('SignIn', {
      email: 'ann@example.com',
      password: 'correct horse battery',
      address: '1.1.1.1',
      previousToken: s1.token,
    });
    expect(s2.token).not.toBe(s1.token);
    expect((await err(call('GetSession', { token: s1.token }))).code).toBe('LLMGW_ERR_SESSION_INVALID');
    expect((await call<accountingV1.SessionInfo__Output>('GetSession', { token: s2.token })).account?.email).toBe('ann@example.com');
    // Only the hash is stored.
    const rows = await acc.db.db
      .selectFrom('sessions' as never)
      .selectAll()
      .execute();
    expect(JSON.stringify(rows)).not.toContain(s2.token);
    await call('SignOut', { token: s2.token });
    expect((await err(call('GetSession', { token: s2.token }))).code).toBe('LLMGW_ERR_SESSION_INVALID');
    const audit = await c.call<accountingV1.ListAuditResponse__Output>('ListAudit', { limit: 50 });
    expect(audit.events.find((e) => e.action === 'account.approve')?.actor).toBe('op-1');
  });

  it('sessions end after the idle timeout', async () => {
    const s = await call<accountingV1.SignInResponse__Output>('SignIn', { email: 'ann@example.com', password: 'correct horse battery', address: '1.1.1.2' });
    clockAhead += 61_000;
    try {
      expect((await err(call('GetSession', { token: s.token }))).code).toBe('LLMGW_ERR_SESSION_INVALID');
    } finally {
      clockAhead -= 61_000;
    }
  });

  it('rate-limits failed sign-ins per account, even with the right password after', async () => {
    for (let i = 0; i < 3; i++)
      expect((await err(call('SignIn', { email: 'bob@example.com', password: 'wrong password!', address: '2.2.2.2' }))).code).toBe('LLMGW_ERR_SESSION_INVALID');
    const e = await err(call('SignIn', { email: 'bob@example.com', password: 'wrong password!', address: '2.2.2.3' }));
    expect(e.code).toBe('LLMGW_ERR_SIGNIN_RATE_LIMITED');
    expect(e.message).toMatch(/try again in \d+ s/);
  });

  it('a key claim link works once; the secret is sealed, never stored', async () => {
    const link = await call<accountingV1.ClaimLinkCreated__Output>('CreateClaimLink', {
      kind: 'key',
      project: 'demo',
      account: 'ann@example.com',
      keyName: 'ann-laptop',
    });
    const stored = JSON.stringify(
      await acc.db.db
        .selectFrom('claim_links' as never)
        .selectAll()
        .execute(),
    );
    expect(stored).not.toContain(link.token);
    expect((await call<accountingV1.ClaimResponse__Output>('Claim', { token: link.token, peek: true })).keyName).toBe('ann-laptop');
    const got = await call<accountingV1.ClaimResponse__Output>('Claim', { token: link.token });
    expect(got.secret).toMatch(/^sk-llmgw-/);
    expect((await acc.tenancy.resolve(hashApiKey(got.secret))).keyId).toBe(link.keyId);
    expect(stored).not.toContain(got.secret);
    expect((await err(call('Claim', { token: link.token }))).code).toBe('LLMGW_ERR_NOT_FOUND');
    // Expired links refuse too.
    const old = await call<accountingV1.ClaimLinkCreated__Output>('CreateClaimLink', { kind: 'key', project: 'demo', keyName: 'expiring', ttlMs: 60_000 });
    clockAhead += 61_000;
    try {
      expect((await err(call('Claim', { token: old.token }))).code).toBe('LLMGW_ERR_NOT_FOUND');
    } finally {
      clockAhead -= 61_000;
    }
  });

  it('an invite link sets the password and activates the person', async () => {
    const link = await call<accountingV1.ClaimLinkCreated__Output>('CreateClaimLink', {
      kind: 'invite',
      email: 'cy@example.com',
      name: 'Cy',
      role: 'viewer',
      project: 'demo',
    });
    expect((await err(call('SignIn', { email: 'cy@example.com', password: 'whatever-it-is', address: '3.3.3.3' }))).code).toBe('LLMGW_ERR_SESSION_INVALID');
    const got = await call<accountingV1.ClaimResponse__Output>('Claim', { token: link.token, password: 'cy-password-1' });
    expect(got.account).toMatchObject({ email: 'cy@example.com', status: 'active', role: 'viewer' });
    expect(
      (await call<accountingV1.SignInResponse__Output>('SignIn', { email: 'cy@example.com', password: 'cy-password-1', address: '3.3.3.3' })).token,
    ).toBeTruthy();
  });

  it('suspending a person ends their sessions and revokes their keys', async () => {
    await call('CreateClaimLink', { kind: 'invite', email: 'dee@example.com', name: 'Dee', project: 'demo' }).then((l) =>
      call('Claim', { token: (l as { token: string }).token, password: 'dee-password-1' }),
    );
    const s = await call<accountingV1.SignInResponse__Output>('SignIn', { email: 'dee@example.com', password: 'dee-password-1', address: '4.4.4.4' });
    const k = await call<accountingV1.CreatedKey__Output>('IssueKey', { token: s.token, name: 'dee-1' });
    expect((await call<accountingV1.ListKeysResponse__Output>('ListMyKeys', { token: s.token })).keys.map((x) => x.name)).toEqual(['dee-1']);
    await call('UpdateAccount', { ref: 'dee@example.com', action: 'suspend' });
    expect((await err(call('GetSession', { token: s.token }))).code).toBe('LLMGW_ERR_SESSION_INVALID');
    await expect(acc.tenancy.resolve(hashApiKey(k.secret))).rejects.toThrow();
    await call('UpdateAccount', { ref: 'dee@example.com', action: 'reinstate' });
    expect(
      (await call<accountingV1.SignInResponse__Output>('SignIn', { email: 'dee@example.com', password: 'dee-password-1', address: '4.4.4.4' })).account?.status,
    ).toBe('active');
  });

  it('the first admin is made once, its password shown once', async () => {
    const again = await ensureFirstAdmin(acc.accounts);
    expect(again.password).toBeUndefined();
  });

  it('refuses bad input with the field named', async () => {
    expect((await err(call('Signup', { email: 'nope', name: 'x', password: 'long enough pw' }))).message).toMatch(/email/);
    expect((await err(call('Signup', { email: 'e@x.y', name: 'x', password: 'short' }))).message).toMatch(/password/);
    expect((await err(call('UpdateAccount', { ref: 'ann@example.com', action: 'role', role: 'god' }))).message).toMatch(/role must be one of/);
    expect((await err(call('UpdateAccount', { ref: 'ann@example.com', action: 'explode' }))).code).toBe('LLMGW_ERR_INVALID_ARGUMENT');
  });
});

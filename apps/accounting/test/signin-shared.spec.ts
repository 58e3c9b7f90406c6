import { AccountingClient } from '@llmgw/accounting-rpc';
import { createTestDatabase } from '@llmgw/db/testing';
import { createLogger } from '@llmgw/observability';
import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger } from '@llmgw/stores';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { start, type RunningAccounting } from '../src/server';

const quiet = createLogger({ service: 'signin-shared-test', level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

/** Two accounting instances on one database and one Redis count failed sign-ins together (docs/portal.md, "Security"). */
describe('sign-in attempt limits shared through Redis', () => {
  const prefix = `llmgw-test-signin-${randomBytes(4).toString('hex')}:`;
  let accs: RunningAccounting[] = [];
  let clients: AccountingClient[] = [];
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await createTestDatabase('llmgw_test_signin_shared');
    drop = db.drop;
    const config = {
      listen: '127.0.0.1:0',
      admin_listen: '127.0.0.1:0',
      database_url: db.url,
      rollup_interval: 3_600_000,
      reseed_interval: 3_600_000,
      redis_url: 'redis://127.0.0.1:6379',
      key_prefix: prefix,
      accounts: { signin_attempts_per_account: 3, signin_attempts_per_address: 5 },
    };
    const stores = () => ({ counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() });
    accs = [await start({ config, stores: stores(), log: quiet }), await start({ config, stores: stores(), log: quiet })];
    clients = accs.map((a) => new AccountingClient({ address: a.url }));
  });
  afterAll(async () => {
    clients.forEach((c) => c.close());
    for (const a of accs) await a.close();
    await drop?.();
    const r = new Redis('redis://127.0.0.1:6379');
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    await r.quit();
  });

  const signIn = (i: number, email: string, address: string) =>
    clients[i]!.account('SignIn', { email, password: 'wrong password!', address }).then(
      () => 'OK',
      (e: { code?: string }) => e.code,
    );

  it('failures on one instance count on the other, per account and per address', async () => {
    expect(await signIn(0, 'carol@example.com', '3.3.3.1')).toBe('LLMGW_ERR_SESSION_INVALID');
    expect(await signIn(1, 'carol@example.com', '3.3.3.2')).toBe('LLMGW_ERR_SESSION_INVALID');
    expect(await signIn(0, 'carol@example.com', '3.3.3.3')).toBe('LLMGW_ERR_SESSION_INVALID');
    expect(await signIn(1, 'carol@example.com', '3.3.3.4')).toBe('LLMGW_ERR_SIGNIN_RATE_LIMITED');
    // Per address: five failures for different accounts from one address, spread over both instances.
    for (let i = 0; i < 5; i++) expect(await signIn(i % 2, `p${i}@example.com`, '4.4.4.4')).toBe('LLMGW_ERR_SESSION_INVALID');
    expect(await signIn(1, 'someone-else@example.com', '4.4.4.4')).toBe('LLMGW_ERR_SIGNIN_RATE_LIMITED');
    expect(await signIn(0, 'someone-else@example.com', '4.4.4.5')).toBe('LLMGW_ERR_SESSION_INVALID');
  });
});

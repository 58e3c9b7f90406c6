import { accountingProto } from '@llmgw/accounting-rpc';
import { HEALTH_SERVICE } from '@llmgw/grpc';
import { createLogger } from '@llmgw/observability';
import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger } from '@llmgw/stores';
import { rawCall, refusals, testPki, type TestPki } from '@llmgw/testing';
import { Writable } from 'node:stream';
import { start, type RunningAccounting } from '../src/server';

const lines: string[] = [];
const log = createLogger({ service: 'accounting-tls-test', level: 'warn', destination: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) });

// Every gRPC port of accounting, over mTLS: who gets in and what the others see (docs/security.md).
describe('accounting port over mTLS', () => {
  let pki: TestPki;
  let acc: RunningAccounting;
  const pkg = accountingProto();
  const admin = pkg.TenancyAdmin.service;
  const resolver = pkg.KeyResolver.service;

  beforeAll(async () => {
    pki = await testPki();
    acc = await start({
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        database_url: 'pglite:memory',
        rollup_interval: 3_600_000,
        reseed_interval: 3_600_000,
        tls: pki.serverTls(),
      },
      stores: { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() },
      log,
    });
  }, 60_000);
  afterAll(() => acc?.close());

  it('refuses TenancyAdmin to callers without a certificate, from another CA, without a role or with the wrong role', async () => {
    const r = await refusals(pki, acc.url, admin, 'CreateOrg', { name: 'x' }, 'node');
    // Without a certificate the TLS handshake fails: the client sees UNAVAILABLE, the server logs why.
    expect(r.noCert.code).toBe('UNAVAILABLE');
    expect(r.otherCa.code).toBe('UNAVAILABLE');
    expect(r.plaintext.code).toBe('UNAVAILABLE');
    expect(r.noRole).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/carries no role/) });
    expect(r.wrongRole).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'wrong role "node" (CN=test-node) for llmgw.accounting.v1.TenancyAdmin/CreateOrg; it needs role operator or portal',
    });
    expect(lines.join('')).toMatch(/TLS handshake refused: .*certificate/i);
  });

  it('lets operators and the portal administer tenancy, not routers', async () => {
    expect(await rawCall(acc.url, pki.clientTls('operator'), admin, 'CreateOrg', { name: 'tls-org' })).toMatchObject({
      code: 'OK',
      response: { name: 'tls-org' },
    });
    expect(await rawCall(acc.url, pki.clientTls('portal'), admin, 'ListOrgs', {})).toMatchObject({ code: 'OK' });
    expect(await rawCall(acc.url, pki.clientTls('router'), admin, 'ListOrgs', {})).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: expect.stringMatching(/wrong role "router"/),
    });
  });

  it('lets routers resolve keys, and no one else', async () => {
    const req = { keyHash: 'f'.repeat(64) };
    // Authorized: the call reaches the handler (an unknown key is UNAUTHENTICATED from the resolver, not the port).
    const ok = await rawCall(acc.url, pki.clientTls('router'), resolver, 'ResolveKey', req);
    expect(ok.message).not.toMatch(/role|certificate/);
    const r = await refusals(pki, acc.url, resolver, 'ResolveKey', req, 'operator');
    expect(r.wrongRole).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/wrong role "operator" .* needs role router/) });
    expect(r.noCert.code).toBe('UNAVAILABLE');
    expect(r.otherCa.code).toBe('UNAVAILABLE');
  });

  it('answers gRPC health to any certificate of its CA', async () => {
    expect(await rawCall(acc.url, pki.clientTls('node'), HEALTH_SERVICE, 'Check', { service: 'llmgw.accounting.v1.TenancyAdmin' })).toMatchObject({
      code: 'OK',
      response: { status: 'SERVING' },
    });
    expect((await rawCall(acc.url, pki.otherCaTls(), HEALTH_SERVICE, 'Check', { service: '' })).code).toBe('UNAVAILABLE');
  });
});

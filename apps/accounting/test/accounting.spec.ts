import * as grpc from '@grpc/grpc-js';
import { AccountingClient, type AccountingMethod } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import { createDb, type Db } from '@llmgw/db';
import { createTestDatabase } from '@llmgw/db/testing';
import { checkHealth, initCa, issueCert, readCertFiles } from '@llmgw/grpc';
import { createLogger } from '@llmgw/observability';
import {
  type AccountingStores,
  type LedgerRecord,
  type KeyCacheInvalidation,
  MemoryKeyCacheBus,
  MemoryLimitCounters,
  MemoryUsageLedger,
  redisAccountingStores,
  redisKeys,
} from '@llmgw/stores';
import Redis from 'ioredis';
import { hashApiKey, periodBounds } from '@llmgw/tenancy';
import { waitUntil } from '@llmgw/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { ensureDemoTenant } from '../src/bootstrap';
import { start, type RunningAccounting } from '../src/server';

const quiet = createLogger({ service: 'accounting-test', level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

function memStores(): AccountingStores {
  return { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() };
}

const baseConfig = {
  listen: '127.0.0.1:0',
  admin_listen: '127.0.0.1:0',
  ingest: { batch_interval: 50, consumer: 'test' },
  rollup_interval: 3_600_000,
  reseed_interval: 3_600_000,
};

/** The service's clock: real time plus what a test has moved it forward by. */
let clockAhead = 0;
const now = () => Date.now() + clockAhead;

const rec = (i: number, keyId: string, projectId: string, over: Partial<LedgerRecord> = {}): LedgerRecord => ({
  recordId: `rec-${i}`,
  requestId: `req-${i}`,
  ts: Date.now(),
  keyId,
  projectId,
  model: 'm',
  servedModel: 'm',
  status: 200,
  promptTokens: 10,
  completionTokens: 20,
  cachedTokens: 0,
  durationMs: 5,
  costMicros: 100,
  ...over,
});

describe('accounting service (PGlite, in-process stores)', () => {
  let acc: RunningAccounting;
  let stores: AccountingStores;
  let c: AccountingClient;
  const events: KeyCacheInvalidation[] = [];

  beforeAll(async () => {
    stores = memStores();
    await stores.keyCacheBus.subscribe((e) => events.push(e));
    acc = await start({ config: { ...baseConfig, database_url: 'pglite:memory' }, stores, log: quiet, now });
    c = new AccountingClient({ address: acc.url });
  });
  afterAll(async () => {
    c.close();
    await acc.close();
  });

  const admin = <T>(m: AccountingMethod, req: object) => c.call<T>(m, req, { actor: 'alice' });

  it('builds the tree, mints a key shown once, and resolves its hash to the principal', async () => {
    const org = await admin<accountingV1.Org__Output>('CreateOrg', { name: 'acme' });
    expect(org.id).toMatch(/^org_/);
    const team = await admin<accountingV1.Team__Output>('CreateTeam', { org: 'acme', name: 'ml' });
    const proj = await admin<accountingV1.Project__Output>('CreateProject', { team: team.id, name: 'chat', band: 'silver' });
    const created = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: proj.id, name: 'k1', routingProfile: 'batch' });
    expect(created.secret).toMatch(/^sk-llmgw-[0-9A-Za-z]+$/);
    expect(created.key!.keyPrefix).toBe(created.secret.slice(0, 13));
    const shown = await admin<accountingV1.ApiKey__Output>('GetKey', { ref: created.key!.id });
    expect(JSON.stringify(shown)).not.toContain(created.secret);

    await admin('SetLimit', {
      scope: { scopeType: 'org', scope: 'acme' },
      limit: { hasRpm: true, rpm: 100, modelsRestricted: true, allowedModels: ['a', 'b'] },
    });
    await admin('SetLimit', {
      scope: { scopeType: 'key', scope: created.key!.id },
      limit: { hasRpm: true, rpm: 500, hasBudget: true, budgetMicros: 1000, budgetPeriod: 'day', modelsRestricted: true, allowedModels: ['b', 'c'] },
    });
    const r = await c.call<accountingV1.ResolvedKey__Output>('ResolveKey', { keyHash: hashApiKey(created.secret) });
    expect(r).toMatchObject({ keyId: created.key!.id, projectId: proj.id, teamId: team.id, orgId: org.id, band: 'silver', routingProfile: 'batch' });
    expect(r.limits!.rpm.map((x) => [x.scope, x.limit])).toEqual([
      [`key:${created.key!.id}`, 500],
      [`org:${org.id}`, 100],
    ]);
    expect(r.limits!.budgets).toEqual([{ scope: `key:${created.key!.id}`, limitMicros: 1000, period: 'day' }]);
    expect(r.limits!.modelsRestricted).toBe(true);
    expect(r.limits!.allowedModels).toEqual(['b']);
  });

  it('AuditLog.AppendAudit: a fleet action lands in the same audit log, with the operator the relay names', async () => {
    const ev = await c.appendAudit(
      { action: 'node.drain', targetType: 'node', targetId: 'gpu-a-01', details: JSON.stringify({ reason: 'swap PSU', replicaDrainTimeoutMs: 2000 }) },
      'bob@ops',
    );
    expect(ev).toMatchObject({ actor: 'bob@ops', action: 'node.drain', targetType: 'node', targetId: 'gpu-a-01' });
    const audit = await admin<accountingV1.ListAuditResponse__Output>('ListAudit', { targetId: 'gpu-a-01' });
    expect(audit.events.map((e) => [e.action, e.actor])).toEqual([['node.drain', 'bob@ops']]);
    expect(JSON.parse(audit.events[0].details)).toEqual({ reason: 'swap PSU', replicaDrainTimeoutMs: 2000 });
    await expect(c.appendAudit({ action: '', targetType: 'node', targetId: 'x' }, 'bob')).rejects.toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT' });
    await expect(c.appendAudit({ action: 'node.cordon', targetType: 'node', targetId: 'x', details: '[1]' }, 'bob')).rejects.toMatchObject({
      code: 'LLMGW_ERR_INVALID_ARGUMENT',
      message: expect.stringContaining('JSON object'),
    });
  });

  it.each([
    ['an unknown hash', 'f'.repeat(64), 'LLMGW_ERR_NOT_FOUND'],
    ['a malformed hash', 'xyz', 'LLMGW_ERR_INVALID_ARGUMENT'],
  ])('ResolveKey refuses %s', async (_n, keyHash, code) => {
    await expect(c.call('ResolveKey', { keyHash })).rejects.toMatchObject({ code });
  });

  it('revocation is a soft delete, refuses the key, publishes an invalidation and is audited', async () => {
    const created = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: 'chat', name: 'k2' });
    const hash = hashApiKey(created.secret);
    await c.call('ResolveKey', { keyHash: hash });
    events.length = 0;
    const revoked = await admin<accountingV1.ApiKey__Output>('RevokeKey', { ref: created.key!.id });
    expect(revoked.revokedAtMs).toBeGreaterThan(0);
    expect(events).toContainEqual({ scopeType: 'key', scopeId: created.key!.id });
    await expect(c.call('ResolveKey', { keyHash: hash })).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND' });
    const listed = await admin<accountingV1.ListKeysResponse__Output>('ListKeys', { project: 'chat', includeRevoked: true });
    expect(listed.keys.map((k) => k.id)).toContain(created.key!.id);
    const active = await admin<accountingV1.ListKeysResponse__Output>('ListKeys', { project: 'chat' });
    expect(active.keys.map((k) => k.id)).not.toContain(created.key!.id);
    const audit = await admin<accountingV1.ListAuditResponse__Output>('ListAudit', { targetId: created.key!.id });
    expect(audit.events.map((e) => [e.action, e.actor])).toEqual([
      ['key.revoke', 'alice'],
      ['key.create', 'alice'],
    ]);
    expect(audit.events.map((e) => e.details).join()).not.toContain(created.secret);
  });

  it('an expired key does not resolve', async () => {
    const created = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: 'chat', name: 'k3', expiresAtMs: now() + 60_000 });
    await c.call('ResolveKey', { keyHash: hashApiKey(created.secret) });
    clockAhead = 60_000;
    try {
      await expect(c.call('ResolveKey', { keyHash: hashApiKey(created.secret) })).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND' });
    } finally {
      clockAhead = 0;
    }
  });

  it.each<[string, AccountingMethod, object, string]>([
    ['a duplicate org name', 'CreateOrg', { name: 'acme' }, 'LLMGW_ERR_ALREADY_EXISTS'],
    ['a team in an unknown org', 'CreateTeam', { org: 'nope', name: 'x' }, 'LLMGW_ERR_NOT_FOUND'],
    ['an empty name', 'CreateOrg', { name: '' }, 'LLMGW_ERR_INVALID_ARGUMENT'],
    ['a bad scope type', 'GetLimit', { scopeType: 'galaxy', scope: 'x' }, 'LLMGW_ERR_INVALID_ARGUMENT'],
    ['a negative limit', 'SetLimit', { scope: { scopeType: 'org', scope: 'acme' }, limit: { hasRpm: true, rpm: -1 } }, 'LLMGW_ERR_INVALID_ARGUMENT'],
    ['a key expiring in the past', 'CreateKey', { project: 'chat', name: 'old', expiresAtMs: 1 }, 'LLMGW_ERR_INVALID_ARGUMENT'],
  ])('refuses %s', async (_n, method, req, code) => {
    await expect(admin(method, req)).rejects.toMatchObject({ code });
  });

  it('writes ledger records once each (duplicates skipped), acks them, and answers usage queries', async () => {
    const keys = await admin<accountingV1.ListKeysResponse__Output>('ListKeys', { project: 'chat' });
    const k = keys.keys[0];
    for (let i = 0; i < 30; i++) await stores.ledger.append(rec(i, k.id, k.projectId));
    for (let i = 0; i < 5; i++) await stores.ledger.append(rec(i, k.id, k.projectId)); // re-delivered
    // A client reusing its x-request-id makes a second, distinct record.
    await stores.ledger.append(rec(0, k.id, k.projectId, { recordId: 'rec-0-retry' }));
    await waitUntil(async () => (await stores.ledger.depth()).length === 0, 'the ledger to drain', { everyMs: 20 });
    const ids = Array.from({ length: 30 }, (_, i) => `req-${i}`);
    await waitUntil(async () => (await acc.usage.countByRequestIds(['req-0'])).get('req-0') === 2, 'the usage rows to be written', { everyMs: 20 });
    const counts = await acc.usage.countByRequestIds(ids);
    expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([['req-0', 2]]);
    expect(counts.size).toBe(30);
    const q = await admin<accountingV1.QueryUsageResponse__Output>('QueryUsage', { scope: { scopeType: 'key', scope: k.id }, groupBy: 'model' });
    expect(q.rows).toEqual([{ group: 'm', requests: 31, refused: 0, failed: 0, promptTokens: 310, completionTokens: 620, cachedTokens: 0, costMicros: 3100 }]);
    const shown = await admin<accountingV1.ApiKey__Output>('GetKey', { ref: k.id });
    expect(shown.lastUsedAtMs).toBeGreaterThan(0);
  });

  it('rollups keep totals and spend identical, and retention only deletes rolled rows', async () => {
    const keys = await admin<accountingV1.ListKeysResponse__Output>('ListKeys', { project: 'chat' });
    const k = keys.keys[0];
    const day = periodBounds('day', Date.now());
    const before = await acc.usage.spend('org', (await acc.tenancy.org('acme')).id, day.start, day.end);
    expect(before).toBe(3100);
    await acc.rollupNow();
    expect(await acc.usage.spend('org', (await acc.tenancy.org('acme')).id, day.start, day.end)).toBe(3100);
    expect(await acc.usage.spend('key', k.id, day.start, day.end)).toBe(3100);
    await stores.ledger.append(rec(100, k.id, k.projectId));
    await waitUntil(async () => (await acc.usage.countByRequestIds(['req-100'])).size === 1, 'the usage rows to be written', { everyMs: 20 });
    expect(await acc.usage.spend('team', (await acc.tenancy.team('ml')).id, day.start, day.end)).toBe(3200);
    expect(await acc.usage.applyRetention(Date.now() + 10_000, 1)).toBe(31);
    expect(await acc.usage.spend('project', k.projectId, day.start, day.end)).toBe(3200);
    await acc.rollupNow();
    expect(await acc.usage.rollup()).toBe(0);
    expect(await acc.usage.spend('project', k.projectId, day.start, day.end)).toBe(3200);
  });

  it('counts refused (4xx) and failed (5xx) requests apart from served ones, before and after rollup, and groups by status', async () => {
    const created = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: 'chat', name: 'refusals' });
    const k = created.key!;
    const zero = { promptTokens: 0, completionTokens: 0, costMicros: 0 };
    await stores.ledger.append(rec(500, k.id, k.projectId, { recordId: 'st-1' }));
    await stores.ledger.append(rec(501, k.id, k.projectId, { recordId: 'st-2', status: 429, ...zero }));
    await stores.ledger.append(rec(502, k.id, k.projectId, { recordId: 'st-3', status: 429, ...zero }));
    await stores.ledger.append(rec(503, k.id, k.projectId, { recordId: 'st-4', status: 503, ...zero }));
    await waitUntil(async () => (await acc.usage.countByRequestIds(['req-500', 'req-501', 'req-502', 'req-503'])).size === 4, 'the usage rows to be written', {
      everyMs: 20,
    });
    const total = async () => (await admin<accountingV1.QueryUsageResponse__Output>('QueryUsage', { scope: { scopeType: 'key', scope: k.id } })).rows;
    const byStatus = async () =>
      (await admin<accountingV1.QueryUsageResponse__Output>('QueryUsage', { scope: { scopeType: 'key', scope: k.id }, groupBy: 'status' })).rows.map((r) => [
        r.group,
        r.requests,
        r.refused,
        r.failed,
      ]);
    const want = [{ group: '', requests: 1, refused: 2, failed: 1, promptTokens: 10, completionTokens: 20, cachedTokens: 0, costMicros: 100 }];
    const wantByStatus = [
      ['200', 1, 0, 0],
      ['429', 0, 2, 0],
      ['503', 0, 0, 1],
    ];
    expect(await total()).toEqual(want);
    expect(await byStatus()).toEqual(wantByStatus);
    await acc.rollupNow();
    expect(await total()).toEqual(want);
    expect(await byStatus()).toEqual(wantByStatus);
    await expect(admin('QueryUsage', { groupBy: 'colour' })).rejects.toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT' });
  });

  it('writes last_used_at at most once a minute per key', async () => {
    const created = await admin<accountingV1.CreatedKey__Output>('CreateKey', { project: 'chat', name: 'lu' });
    const k = created.key!;
    const t1 = Date.now();
    const lastUsed = async () => (await admin<accountingV1.ApiKey__Output>('GetKey', { ref: k.id })).lastUsedAtMs;
    await stores.ledger.append(rec(900, k.id, k.projectId, { recordId: 'lu-1', ts: t1 }));
    await waitUntil(async () => (await lastUsed()) === t1, 'last_used_at to move', { everyMs: 20 });
    await stores.ledger.append(rec(901, k.id, k.projectId, { recordId: 'lu-2', ts: t1 + 30_000 }));
    await waitUntil(async () => (await acc.usage.countByRequestIds(['req-901'])).size === 1, 'the usage rows to be written', { everyMs: 20 });
    expect(await lastUsed()).toBe(t1);
    await stores.ledger.append(rec(902, k.id, k.projectId, { recordId: 'lu-3', ts: t1 + 61_000 }));
    await waitUntil(async () => (await lastUsed()) === t1 + 61_000, 'last_used_at to move', { everyMs: 20 });
  });

  it('the demo bootstrap is idempotent and shows the key once', async () => {
    const a = await ensureDemoTenant(acc.tenancy);
    expect(a.secret).toMatch(/^sk-llmgw-/);
    const b = await ensureDemoTenant(acc.tenancy);
    expect(b.secret).toBeUndefined();
    expect(b.keyId).toBe(a.keyId);
    await c.call('ResolveKey', { keyHash: hashApiKey(a.secret!) });
  });

  it('answers the standard gRPC health check', async () => {
    expect(await checkHealth(acc.url, grpc.credentials.createInsecure())).toBe('SERVING');
    expect(await checkHealth(acc.url, grpc.credentials.createInsecure(), 'llmgw.accounting.v1.KeyResolver')).toBe('SERVING');
  });

  it('serves /healthz, /readyz and the ingestion metrics on the admin port', async () => {
    expect((await fetch(`${acc.adminUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${acc.adminUrl}/readyz`)).status).toBe(200);
    const m = await (await fetch(`${acc.adminUrl}/metrics`)).text();
    for (const name of ['llmgw_usage_stream_depth', 'llmgw_usage_batch_size', 'llmgw_usage_insert_seconds', 'llmgw_usage_records_total'])
      expect(m).toContain(name);
    expect(m).toMatch(/llmgw_usage_records_total\{result="duplicate",service="accounting"\} 5/);
  });
});

describe.each([
  ['pglite', async () => ({ url: 'pglite:memory', drop: async () => {} })],
  ['postgres', () => createTestDatabase()],
])('restart keeps the budget spent (%s)', (_name, makeDb) => {
  it('reseeds budget counters from rollups plus the un-rolled tail, idempotently', async () => {
    const t = await makeDb();
    const db: Db = await createDb(t.url);
    try {
      const stores1 = memStores();
      const acc1 = await start({ config: { ...baseConfig, database_url: t.url }, stores: stores1, db, log: quiet });
      const org = await acc1.tenancy.createOrg('t', 'o');
      const team = await acc1.tenancy.createTeam('t', org.id, 't');
      const proj = await acc1.tenancy.createProject('t', team.id, 'p');
      const { row: key } = await acc1.tenancy.createKey('t', proj.id, { name: 'k' });
      await acc1.tenancy.setLimit('t', 'team', team.id, { budgetMicros: 10_000, budgetPeriod: 'month' });
      for (let i = 0; i < 10; i++) await stores1.ledger.append(rec(i, key.id, proj.id, { costMicros: 300 }));
      await waitUntil(
        async () => (await acc1.usage.countByRequestIds(Array.from({ length: 10 }, (_, i) => `req-${i}`))).size === 10,
        'the usage rows to be written',
        { everyMs: 20 },
      );
      await acc1.rollupNow();
      for (let i = 10; i < 15; i++) await stores1.ledger.append(rec(i, key.id, proj.id, { costMicros: 300 }));
      await waitUntil(
        async () => (await acc1.usage.countByRequestIds(Array.from({ length: 15 }, (_, i) => `req-${i}`))).size === 15,
        'the usage rows to be written',
        { everyMs: 20 },
      );
      await acc1.close();

      // A fresh process: empty counters, same database.
      const stores2 = memStores();
      const acc2 = await start({ config: { ...baseConfig, database_url: t.url }, stores: stores2, db, log: quiet });
      const month = periodBounds('month', Date.now());
      expect(await stores2.counters.budgetSpent(`team:${team.id}`, month.start)).toBe(4500);
      await acc2.usage.reseedBudgets(stores2.counters, Date.now());
      expect(await stores2.counters.budgetSpent(`team:${team.id}`, month.start)).toBe(4500);
      await acc2.close();
    } finally {
      await db.close();
      await t.drop();
    }
  });
});

describe('accounting over mTLS', () => {
  it('refuses clients without a certificate and records the certificate CN as the audit actor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmgw-acct-tls-'));
    try {
      const ca = await initCa({ dir: join(dir, 'ca') });
      const srv = await issueCert({ ca, dir, name: 'accounting', commonName: 'accounting', sans: ['127.0.0.1', 'localhost'], usage: 'server' });
      const cli = await readCertFiles(await issueCert({ ca, dir, name: 'ops', commonName: 'ops-alice', usage: 'client', role: 'operator' }));
      const relay = await readCertFiles(await issueCert({ ca, dir, name: 'sched', commonName: 'sched-1', usage: 'client', role: 'placement-scheduler' }));
      const caPem = (await readCertFiles(ca)).cert;
      const acc = await start({
        config: { ...baseConfig, database_url: 'pglite:memory', tls: { cert: srv.certPath, key: srv.keyPath, client_ca: ca.certPath } },
        stores: memStores(),
        log: quiet,
      });
      try {
        const good = new AccountingClient({ address: acc.url, tls: { ca: caPem, ...cli } });
        const org = await good.call<accountingV1.Org__Output>('CreateOrg', { name: 'tls-org' });
        const audit = await good.call<accountingV1.ListAuditResponse__Output>('ListAudit', { targetId: org.id });
        expect(audit.events[0].actor).toBe('cn=ops-alice');
        // Only a relay (role placement-scheduler) appends fleet actions: the operator it names is the actor, its own CN is kept as `via`.
        await expect(good.appendAudit({ action: 'node.cordon', targetType: 'node', targetId: 'n1', details: '{}' }, 'mallory@ops')).rejects.toMatchObject({
          message: expect.stringMatching(/wrong role "operator" .*AuditLog\/AppendAudit/),
        });
        good.close();
        const sched = new AccountingClient({ address: acc.url, tls: { ca: caPem, ...relay } });
        const ev = await sched.appendAudit({ action: 'node.cordon', targetType: 'node', targetId: 'n1', details: '{"reason":"fan"}' }, 'carol@ops');
        expect(ev.actor).toBe('carol@ops');
        expect(JSON.parse(ev.details)).toEqual({ reason: 'fan', via: 'cn=sched-1' });
        sched.close();
        const anon = new AccountingClient({ address: acc.url, tls: { ca: caPem } });
        await expect(anon.call('ListOrgs', {}, { deadlineMs: 3000 })).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
        anon.close();
        const plain = new AccountingClient({ address: acc.url, credentials: grpc.credentials.createInsecure() });
        await expect(plain.call('ListOrgs', {}, { deadlineMs: 3000 })).rejects.toBeDefined();
        plain.close();
      } finally {
        await acc.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ingestion on Redis', () => {
  it('recreates the consumer group when the stream disappears (Redis restarted empty)', async () => {
    const redis = new Redis({ host: '127.0.0.1', port: 6379 });
    const prefix = `test:${Math.random().toString(36).slice(2)}:`;
    const stores = redisAccountingStores(redis, prefix);
    const acc = await start({ config: { ...baseConfig, database_url: 'pglite:memory' }, stores, log: quiet });
    try {
      await stores.ledger.append(rec(1, 'k', 'p', { recordId: 'a' }));
      await waitUntil(async () => (await acc.usage.countByRequestIds(['req-1'])).size === 1, 'the usage rows to be written', { everyMs: 20 });
      await redis.del(`${prefix}usage`);
      await stores.ledger.append(rec(2, 'k', 'p', { recordId: 'b' }));
      await waitUntil(async () => (await acc.usage.countByRequestIds(['req-2'])).size === 1, 'the usage rows to be written', {
        timeoutMs: 10_000,
        everyMs: 20,
      });
    } finally {
      await acc.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  });
  it('logs and skips records that are not usage record v1, and keeps ingesting the good ones', async () => {
    const redis = new Redis({ host: '127.0.0.1', port: 6379 });
    const prefix = `test:${Math.random().toString(36).slice(2)}:`;
    const warned: Array<{ obj: object; msg: string }> = [];
    const stores = redisAccountingStores(redis, prefix, { log: { warn: (obj, msg) => warned.push({ obj, msg }) } });
    const acc = await start({ config: { ...baseConfig, database_url: 'pglite:memory' }, stores, log: quiet });
    try {
      const stream = redisKeys.usageStream(prefix);
      await redis.xadd(stream, '*', 'r', '{not json');
      await redis.xadd(stream, '*', 'r', JSON.stringify({ ...rec(3, 'k', 'p'), promptTokens: 'many' }));
      await redis.xadd(stream, '*', 'other', 'x');
      await stores.ledger.append(rec(4, 'k', 'p', { recordId: 'd' }));
      await waitUntil(async () => (await acc.usage.countByRequestIds(['req-4'])).size === 1, 'the usage rows to be written', { everyMs: 20 });
      expect((await acc.usage.countByRequestIds(['req-3'])).size).toBe(0);
      expect(warned.map((w) => w.msg)).toEqual(
        expect.arrayContaining([expect.stringMatching(/not a valid usage record v1/), expect.stringMatching(/without a record field/)]),
      );
      expect(warned.find((w) => /promptTokens/.test(JSON.stringify(w.obj)))).toBeDefined();
      // Skipped entries are acknowledged: nothing stays pending behind them.
      await waitUntil(async () => (await stores.ledger.depth()).pending === 0, 'the ledger to drain', { everyMs: 20 });
    } finally {
      await acc.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  });
});

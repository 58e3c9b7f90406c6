import { createDb, type Db } from '@llmgw/db';
import { createLogger, createRegistry } from '@llmgw/observability';
import {
  type AccountingStores,
  MemoryKeyCacheBus,
  MemoryLimitCounters,
  MemoryPublishedKeys,
  MemoryUsageLedger,
  type PublishedKey,
  type PublishedKeys,
} from '@llmgw/stores';
import { waitUntil } from '@llmgw/testing';
import { Writable } from 'node:stream';
import { KeyPublisher } from './key-publisher';
import { start, type RunningAccounting } from './server';

const quiet = createLogger({ service: 'accounting-test', level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const config = {
  listen: '127.0.0.1:0',
  admin_listen: '127.0.0.1:0',
  ingest: { batch_interval: 50, consumer: 'test' },
  rollup_interval: 3_600_000,
  reseed_interval: 3_600_000,
};

function stores(publishedKeys?: PublishedKeys): AccountingStores {
  return { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus(), publishedKeys };
}

describe('accounting publishes every key record (in-process stores)', () => {
  let db: Db;
  let acc: RunningAccounting;
  let records: MemoryPublishedKeys;

  beforeAll(async () => {
    db = await createDb('pglite:memory');
    records = new MemoryPublishedKeys();
    acc = await start({ config: { ...config, database_url: 'pglite:memory' }, stores: stores(records), log: quiet, db });
  });
  afterAll(async () => {
    await acc.close();
    await db.close();
  });

  it('on create: hash, scope ids, band, profile, expiry and resolved limits; never the secret', async () => {
    const t = acc.tenancy;
    const org = await t.createOrg('op', 'acme');
    const team = await t.createTeam('op', org.id, 'ml');
    const project = await t.createProject('op', team.id, 'chat', 'gold');
    await t.setLimit('op', 'org', org.id, { rpm: 100, budgetMicros: 5_000, budgetPeriod: 'day' });
    const { row, secret } = await t.createKey('op', project.id, { name: 'k', routingProfile: 'fast', expiresAt: Date.now() + 3_600_000 });
    const rec = await records.get(row.key_hash);
    expect(rec).toMatchObject({
      v: 1,
      state: 'active',
      keyHash: row.key_hash,
      keyId: row.id,
      keyPrefix: row.key_prefix,
      projectId: project.id,
      teamId: team.id,
      orgId: org.id,
      band: 'gold',
      routingProfile: 'fast',
      expiresAt: row.expires_at,
      limits: { rpm: [{ scope: `org:${org.id}`, limit: 100 }], tpm: [], budgets: [{ scope: `org:${org.id}`, limitMicros: 5_000, period: 'day' }] },
    });
    // Exactly what ResolveKey answers.
    const { v: _v, state: _s, keyHash: _h, rev: _r, ...asRecord } = rec as Extract<PublishedKey, { state: 'active' }>;
    expect(asRecord).toEqual(await t.resolve(row.key_hash));
    expect(JSON.stringify(rec)).not.toContain(secret);
    expect(JSON.stringify(rec)).not.toContain(secret.slice(row.key_prefix.length));
  });

  it('on update (the key, its project, a limit anywhere on its chain) and revoke (a tombstone, written before the call returns)', async () => {
    const t = acc.tenancy;
    const project = (await t.listProjects()).find((p) => p.name === 'chat')!;
    const { row } = await t.createKey('op', project.id, { name: 'k2' });
    await t.updateKey('op', row.id, { band: 'silver' });
    expect(await records.get(row.key_hash)).toMatchObject({ band: 'silver' });
    await t.setLimit('op', 'team', project.team_id, { tpm: 7 });
    await waitUntil(
      async () => {
        const r = await records.get(row.key_hash);
        return r?.state === 'active' && r.limits.tpm.some((x) => x.limit === 7);
      },
      'the team limit in the record',
      { everyMs: 20 },
    );
    await t.updateProject('op', project.id, { band: 'platinum' });
    await t.updateKey('op', row.id, { band: null });
    expect(await records.get(row.key_hash)).toMatchObject({ band: 'platinum' });
    await t.revokeKey('op', row.id);
    expect(await records.get(row.key_hash)).toEqual({ v: 1, state: 'revoked', keyHash: row.key_hash, keyId: row.id, rev: expect.any(Number) });
    // Nothing brings it back: a later republish of its org leaves the tombstone.
    const org = (await t.listOrgs())[0];
    await t.setLimit('op', 'org', org.id, { rpm: 99 });
    await waitUntil(
      async () => {
        const others = await t.listKeys(project.id);
        const r = await records.get(others[0].key_hash);
        return r?.state === 'active' && r.limits.rpm.some((x) => x.limit === 99);
      },
      'the org limit in another key',
      { everyMs: 20 },
    );
    expect((await records.get(row.key_hash))!.state).toBe('revoked');
  });

  it('backfills every key at start, in bounded batches (tombstones for revoked ones)', async () => {
    const t = acc.tenancy;
    const project = (await t.listProjects()).find((p) => p.name === 'chat')!;
    for (let i = 0; i < 5; i++) await t.createKey('op', project.id, { name: `b${i}` });
    const all = await t.listKeys(undefined, true);
    // A second accounting on the same database with an empty record store (Redis flushed, or records never written).
    const fresh = new MemoryPublishedKeys();
    const puts: number[] = [];
    const counting: PublishedKeys = { put: (r) => (puts.push(r.length), fresh.put(r)), get: (h) => fresh.get(h) };
    const pub = new KeyPublisher(db.db, counting, { log: quiet, registry: createRegistry('accounting'), batchSize: 3 });
    pub.attach(t);
    expect(await pub.backfill()).toBe(all.length);
    expect(fresh.size).toBe(all.length);
    expect(Math.max(...puts)).toBeLessThanOrEqual(3);
    for (const k of all) expect((await fresh.get(k.key_hash))!.state).toBe(k.revoked_at === null ? 'active' : 'revoked');
    // And accounting's own start did so for the store it was given.
    const again = new MemoryPublishedKeys();
    const acc2 = await start({ config: { ...config, database_url: 'pglite:memory' }, stores: stores(again), log: quiet, db });
    try {
      await waitUntil(() => again.size === all.length, 'the backfill at start', { everyMs: 20 });
    } finally {
      await acc2.close();
    }
  });

  it('a record store that does not answer does not hold up a revoke for long, nor fail it, nor hold up shutdown', async () => {
    const t = acc.tenancy;
    const project = (await t.listProjects()).find((p) => p.name === 'chat')!;
    const { row } = await t.createKey('op', project.id, { name: 'slow' });
    const hung: PublishedKeys = { put: () => new Promise(() => undefined), get: async () => undefined };
    const pub = new KeyPublisher(db.db, hung, { log: quiet, registry: createRegistry('accounting'), writeTimeoutMs: 50 });
    pub.attach(t);
    const bus = pub.wrap(new MemoryKeyCacheBus());
    const seen: string[] = [];
    await bus.subscribe((ev) => seen.push(`${ev.scopeType}:${ev.scopeId}`));
    await bus.publish({ scopeType: 'key', scopeId: row.id });
    expect(seen).toEqual([`key:${row.id}`]);
    // Nor a shutdown: a backfill stuck on the store is left behind.
    pub.startBackfill();
    let closed = false;
    await pub.close().then(() => (closed = true));
    expect(closed).toBe(true);
  });
});

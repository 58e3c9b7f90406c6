import { createDb, type Db } from '@llmgw/db';
import { createTestDatabase } from '@llmgw/db/testing';
import { createLogger } from '@llmgw/observability';
import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger, type LedgerRecord } from '@llmgw/stores';
import { Writable } from 'node:stream';
import { start } from '../src/server';
import type { UsageGroupBy } from '../src/usage-store';

const quiet = createLogger({ service: 'usage-rollups-test', level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const baseConfig = {
  listen: '127.0.0.1:0',
  admin_listen: '127.0.0.1:0',
  ingest: { batch_interval: 50, consumer: 'test' },
  rollup_interval: 3_600_000,
  reseed_interval: 3_600_000,
};
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The daily and per-model hourly rollups (migration 0008, with adapters: 0009) answer exactly what
 * the raw rows and the hourly rollup answer, for every grouping, over windows
 * that cut days at both ends, within one day, and scoped; team and org group
 * by name.
 */
describe.each([
  ['pglite', async () => ({ url: 'pglite:memory', drop: async () => {} })],
  ['postgres', () => createTestDatabase('llmgw_test_usage_rollups')],
])('usage rollups by day and by model-hour (%s)', (_name, makeDb) => {
  it('give the same totals as the raw rows for every grouping and window', async () => {
    const t = await makeDb();
    const db: Db = await createDb(t.url);
    const acc = await start({
      config: { ...baseConfig, database_url: t.url },
      stores: { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() },
      db,
      log: quiet,
    });
    try {
      const ten = acc.tenancy;
      const keys: { id: string; projectId: string; teamId: string; org: string; team: string }[] = [];
      for (const o of ['acme', 'globex']) {
        const org = await ten.createOrg('t', o);
        for (const tm of ['ml', 'web']) {
          const team = await ten.createTeam('t', org.id, tm);
          const proj = await ten.createProject('t', team.id, 'p');
          const { row } = await ten.createKey('t', proj.id, { name: 'k' });
          keys.push({ id: row.id, projectId: proj.id, teamId: team.id, org: o, team: `${o}/${tm}` });
        }
      }
      const end = Math.floor(Date.now() / DAY) * DAY + 7 * HOUR + 1234;
      const recs: LedgerRecord[] = [];
      for (let i = 0; i < 400; i++) {
        const k = keys[i % keys.length]!;
        recs.push({
          recordId: `r${i}`,
          requestId: `q${i}`,
          ts: end - 1 - ((i * 7919) % (4 * DAY)),
          keyId: k.id,
          projectId: k.projectId,
          model: `m${i % 3}`,
          servedModel: `m${i % 3}`,
          // LoRA adapters on one model (migration 0009); the rest are plain requests.
          ...(i % 3 === 0 && i % 5 < 2 ? { adapter: `a${i % 5}` } : {}),
          status: i % 11 === 0 ? 429 : i % 13 === 0 ? 503 : 200,
          promptTokens: 10 + (i % 7),
          completionTokens: 20 + (i % 5),
          cachedTokens: i % 3,
          durationMs: 5,
          costMicros: 100 + i,
        });
      }
      expect(await acc.usage.insertBatch(recs, 60_000)).toBe(400);
      const windows = [
        { from: end - 3 * DAY - 5 * HOUR - 17, to: end },
        { from: end - 5 * HOUR, to: end },
        { from: end - 2 * DAY, to: end - 2 * HOUR },
      ];
      const scopes = [undefined, { type: 'key' as const, id: keys[1]!.id }, { type: 'team' as const, id: keys[2]!.teamId }];
      const groups: UsageGroupBy[] = ['', 'model', 'adapter', 'key', 'project', 'team', 'org', 'hour', 'status'];
      const all = async () => {
        const out: unknown[] = [];
        for (const w of windows) for (const scope of scopes) for (const groupBy of groups) out.push(await acc.usage.query({ ...w, scope, groupBy }));
        return out;
      };
      const raw = await all();
      // What the raw rows say, summed here: served requests by org over the first window.
      const w0 = windows[0]!;
      const byOrg = new Map<string, number>();
      for (const r of recs)
        if (r.ts >= w0.from && r.ts < w0.to && r.status < 400) {
          const o = keys.find((k) => k.id === r.keyId)!.org;
          byOrg.set(o, (byOrg.get(o) ?? 0) + 1);
        }
      expect((await acc.usage.query({ ...w0, groupBy: 'org' })).map((r) => [r.grp, r.requests])).toEqual([...byOrg.entries()].sort());
      expect((await acc.usage.query({ ...w0, groupBy: 'team' })).map((r) => r.grp)).toEqual(['acme/ml', 'acme/web', 'globex/ml', 'globex/web']);
      // Per adapter: '' for plain requests, one row per adapter, the counts the records say.
      const byAdapter = new Map<string, number>();
      for (const r of recs) if (r.ts >= w0.from && r.ts < w0.to && r.status < 400) byAdapter.set(r.adapter ?? '', (byAdapter.get(r.adapter ?? '') ?? 0) + 1);
      expect((await acc.usage.query({ ...w0, groupBy: 'adapter' })).map((r) => [r.grp, r.requests])).toEqual([...byAdapter.entries()].sort());
      expect([...byAdapter.keys()].sort()).toEqual(['', 'a0', 'a1']);
      expect(await acc.usage.rollup()).toBe(400);
      expect(await all()).toEqual(raw);
      const rows = async (table: 'usage_rollup_day' | 'usage_rollup_model_hour') =>
        Number(
          (
            await db.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await rows('usage_rollup_day')).toBeGreaterThan(0);
      expect(await rows('usage_rollup_model_hour')).toBeGreaterThan(0);
      // A second batch folds into the same buckets (the upsert adds).
      expect(
        await acc.usage.insertBatch(
          recs.map((r) => ({ ...r, recordId: `${r.recordId}b` })),
          60_000,
        ),
      ).toBe(400);
      await acc.usage.rollup();
      const doubled = await acc.usage.query({ ...w0, groupBy: 'org' });
      expect(doubled.map((r) => [r.grp, r.requests])).toEqual([...byOrg.entries()].sort().map(([o, n]) => [o, 2 * n]));
    } finally {
      await acc.close();
      await db.close();
      await t.drop();
    }
  });
});

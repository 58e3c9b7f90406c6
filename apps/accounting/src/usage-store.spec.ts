import { createDb, type Db } from '@llmgw/db';
import { createTestDatabase } from '@llmgw/db/testing';
import type { LedgerRecord } from '@llmgw/stores';
import { sql } from 'kysely';
import { insertUsageRows, toUsageRow, UsageStore } from './usage-store';

/** Text a column may hold that an array literal must quote or escape. */
const AWKWARD = ['a"b', 'c\\d', '{x,y}', 'NULL', 'null', ' padded ', 'ü€😀', "it's", '', 'line\nbreak', 'tab\there'];

function record(i: number, text: string): LedgerRecord {
  return {
    recordId: `rec-${i}`,
    requestId: `req-${i}`,
    ts: 1_796_000_000_000 + i,
    keyId: `key_${text}`,
    projectId: text,
    model: `m${text}`,
    servedModel: text,
    ...(i % 2 ? { adapter: text } : {}),
    ...(i % 3 ? { pool: text } : {}),
    status: i % 2 ? 200 : 429,
    promptTokens: 100 + i,
    completionTokens: 7 * i,
    cachedTokens: i,
    ...(i % 2 ? { ttftMs: 12.6 } : {}),
    durationMs: 300 + i,
    ...(i % 3 ? {} : { queueMs: 4 }),
    costMicros: 2 ** 40 + i,
  } as LedgerRecord;
}

describe.each([
  ['pglite', async () => ({ url: 'pglite:memory', drop: async () => {} })],
  ['postgres', () => createTestDatabase('llmgw_test_usage_store')],
])('UsageStore.insertBatch (%s)', (_name, makeDb) => {
  let t: { url: string; drop(): Promise<void> };
  let h: Db;
  beforeAll(async () => {
    t = await makeDb();
    h = await createDb(t.url);
  });
  afterAll(async () => {
    await h?.close();
    await t?.drop();
  });

  it('stores every field of every record as given, awkward text and absent fields included', async () => {
    const records = AWKWARD.map((text, i) => record(i, text));
    expect(await new UsageStore(h.db).insertBatch(records, 60_000)).toBe(records.length);
    const rows = await h.db.selectFrom('usage').selectAll().where('record_id', 'like', 'rec-%').orderBy('ts').execute();
    expect(rows.map(({ rolled_up: _rolledUp, ...r }) => r)).toEqual(records.map((r) => toUsageRow(r)));
    expect(rows.find((r) => r.record_id === 'rec-3')).toMatchObject({ project_id: 'NULL', pool: null, queue_ms: 4, ttft_ms: 13, adapter: 'NULL' });
    expect(rows.find((r) => r.record_id === 'rec-0')).toMatchObject({ project_id: 'a"b', pool: null, ttft_ms: null, adapter: '' });
  });

  it('inserts a record id once, whether it comes again in a later batch or twice in one', async () => {
    const store = new UsageStore(h.db);
    const first = [record(100, 'x'), record(101, 'y')];
    expect(await store.insertBatch(first, 60_000)).toBe(2);
    // Redelivered after a crash before the ack, with one new record, one of them twice.
    expect(await store.insertBatch([...first, record(102, 'z'), record(102, 'z')], 60_000)).toBe(1);
    const ids = await h.db.selectFrom('usage').select('record_id').where('record_id', 'in', ['rec-100', 'rec-101', 'rec-102']).execute();
    expect(ids.map((r) => r.record_id).sort()).toEqual(['rec-100', 'rec-101', 'rec-102']);
  });

  it('writes a record with figures past its columns held to their range, and the records beside it', async () => {
    const absurd = { ...record(200, 'big'), promptTokens: 3e9, completionTokens: 1e15, durationMs: 1e12, ttftMs: -5e9, queueMs: 1e10, costMicros: 1e20 };
    expect(await new UsageStore(h.db).insertBatch([absurd, record(201, 'ok')], 60_000)).toBe(2);
    const rows = await h.db.selectFrom('usage').selectAll().where('record_id', 'in', ['rec-200', 'rec-201']).orderBy('record_id').execute();
    expect(rows[0]).toMatchObject({
      prompt_tokens: 2_147_483_647,
      completion_tokens: 2_147_483_647,
      duration_ms: 2_147_483_647,
      ttft_ms: -2_147_483_647,
      queue_ms: 2_147_483_647,
      cost_micros: Number.MAX_SAFE_INTEGER,
    });
    expect(rows[1]).toMatchObject({ record_id: 'rec-201', prompt_tokens: 301 });
  });

  it('writes a record whose text holds NUL characters (which Postgres refuses) with U+FFFD in their place', async () => {
    const nul = { ...record(300, 'n'), model: 'gpt\u0000x', servedModel: '\u0000', adapter: 'a\u0000', pool: 'p\u0000\u0000', requestId: 'req\u0000300' };
    expect(await new UsageStore(h.db).insertBatch([nul, record(301, 'ok')], 60_000)).toBe(2);
    const rows = await h.db.selectFrom('usage').selectAll().where('record_id', 'in', ['rec-300', 'rec-301']).orderBy('record_id').execute();
    expect(rows[0]).toMatchObject({ model: 'gpt\uFFFDx', served_model: '\uFFFD', adapter: 'a\uFFFD', pool: 'p\uFFFD\uFFFD', request_id: 'req\uFFFD300' });
    expect(rows[1]).toMatchObject({ record_id: 'rec-301' });
  });

  it("moves each key's last_used_at in one statement, at most once per interval", async () => {
    const t0 = 1_796_000_000_000;
    await sql`insert into organizations (id, name, created_at) values ('org_lu', 'lu', 0)`.execute(h.db);
    await sql`insert into teams (id, org_id, name, created_at) values ('team_lu', 'org_lu', 'lu', 0)`.execute(h.db);
    await sql`insert into projects (id, team_id, name, created_at) values ('proj_lu', 'team_lu', 'lu', 0)`.execute(h.db);
    for (const id of ['key_a', 'key_b'])
      await sql`insert into api_keys (id, key_hash, key_prefix, name, project_id, created_at) values (${id}, ${`hash-${id}`}, 'sk', ${id}, 'proj_lu', 0)`.execute(
        h.db,
      );
    const used = (keyId: string, i: number, ts: number) => ({ ...record(i, 'lu'), keyId, ts });
    const store = new UsageStore(h.db);
    // key_gone has no row (deleted meanwhile): its records are still written.
    expect(await store.insertBatch([used('key_a', 400, t0), used('key_a', 401, t0 + 5), used('key_b', 402, t0 + 10), used('key_gone', 403, t0)], 60_000)).toBe(
      4,
    );
    await store.insertBatch([used('key_a', 404, t0 + 30_000), used('key_b', 405, t0 + 61_000)], 60_000);
    const keys = await h.db.selectFrom('api_keys').select(['id', 'last_used_at']).where('id', 'in', ['key_a', 'key_b']).orderBy('id').execute();
    expect(keys).toEqual([
      { id: 'key_a', last_used_at: t0 + 5 },
      { id: 'key_b', last_used_at: t0 + 61_000 },
    ]);
  });

  it('sends the same statement with 17 parameters whatever the batch size', () => {
    const one = insertUsageRows([toUsageRow(record(1, 'a'))]).compile(h.db);
    const many = insertUsageRows(Array.from({ length: 500 }, (_, i) => toUsageRow(record(i, 'b')))).compile(h.db);
    expect(many.sql).toBe(one.sql);
    expect(one.parameters).toHaveLength(17);
    expect(many.parameters).toHaveLength(17);
    expect((many.parameters[0] as string[]).length).toBe(500);
  });
});

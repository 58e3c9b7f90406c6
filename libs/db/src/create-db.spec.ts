import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { createDb, pingDb, type Db } from './create-db';
import { dbError, isUniqueViolation } from './errors';
import { MIGRATIONS, migrateToLatest } from './migrations';
import { createTestDatabase } from './testing';
import { waitUntil } from '@llmgw/contracts/wait';

type Backend = { name: string; open(): Promise<{ db: Db; cleanup(): Promise<void> }> };

const backends: Backend[] = [
  {
    name: 'pglite',
    async open() {
      const db = await createDb('pglite:memory');
      return { db, cleanup: () => db.close() };
    },
  },
  {
    name: 'postgres',
    async open() {
      const t = await createTestDatabase();
      const db = await createDb(t.url);
      return {
        db,
        async cleanup() {
          await db.close();
          await t.drop();
        },
      };
    },
  },
];

describe.each(backends)('database on $name', (backend) => {
  let h: { db: Db; cleanup(): Promise<void> };
  beforeAll(async () => {
    h = await backend.open();
  });
  afterAll(async () => {
    await h.cleanup();
  });

  it('migrates, and migrating again is a no-op', async () => {
    expect(await migrateToLatest(h.db.db)).toEqual([]);
    const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public' order by 1`.execute(
      h.db.db,
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['organizations', 'teams', 'projects', 'api_keys', 'limits', 'usage', 'usage_rollup', 'audit_log']),
    );
  });

  it('returns bigint columns and bigint sums as numbers on both drivers', async () => {
    const now = 1_800_000_000_000;
    await h.db.db.insertInto('organizations').values({ id: 'o1', name: 'acme', created_at: now }).execute();
    const row = await h.db.db.selectFrom('organizations').selectAll().where('id', '=', 'o1').executeTakeFirstOrThrow();
    expect(row.created_at).toBe(now);
    const s = await h.db.db
      .selectFrom('organizations')
      .select(sql<number>`coalesce(sum(created_at), 0)::bigint`.as('s'))
      .executeTakeFirstOrThrow();
    expect(s.s).toBe(now);
  });

  it('rolls back a failed transaction and keeps serving', async () => {
    await expect(
      h.db.db.transaction().execute(async (tx) => {
        await tx.insertInto('organizations').values({ id: 'o2', name: 'beta', created_at: 1 }).execute();
        await tx.insertInto('organizations').values({ id: 'o3', name: 'beta', created_at: 1 }).execute();
      }),
    ).rejects.toThrow();
    const rows = await h.db.db.selectFrom('organizations').select('id').execute();
    expect(rows.map((r) => r.id)).toEqual(['o1']);
  });

  it('runs concurrent transactions without interleaving them', async () => {
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h.db.db.transaction().execute(async (tx) => {
          await tx
            .insertInto('organizations')
            .values({ id: `c${i}`, name: `c${i}`, created_at: i })
            .execute();
          await tx
            .updateTable('organizations')
            .set({ created_at: i + 100 })
            .where('id', '=', `c${i}`)
            .execute();
        }),
      ),
    );
    const rows = await h.db.db.selectFrom('organizations').select(['id', 'created_at']).where('id', 'like', 'c%').execute();
    expect(rows).toHaveLength(10);
    for (const r of rows) expect(r.created_at).toBe(Number(r.id.slice(1)) + 100);
  });

  it('inserts usage idempotently by record id', async () => {
    const rec = {
      record_id: 'rec-1',
      request_id: 'req-1',
      ts: 1,
      key_id: 'k',
      project_id: 'p',
      model: 'm',
      served_model: 'm',
      pool: null,
      status: 200,
      prompt_tokens: 1,
      completion_tokens: 2,
      cached_tokens: 0,
      ttft_ms: null,
      duration_ms: 5,
      queue_ms: null,
      cost_micros: 7,
    };
    await h.db.db
      .insertInto('usage')
      .values(rec)
      .onConflict((oc) => oc.column('record_id').doNothing())
      .execute();
    await h.db.db
      .insertInto('usage')
      .values(rec)
      .onConflict((oc) => oc.column('record_id').doNothing())
      .execute();
    await h.db.db
      .insertInto('usage')
      .values({ ...rec, record_id: 'rec-2' })
      .onConflict((oc) => oc.column('record_id').doNothing())
      .execute();
    const n = await h.db.db
      .selectFrom('usage')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    expect(n.n).toBe(2);
  });
});

it('refuses an unknown URL scheme', async () => {
  await expect(createDb('mysql://x')).rejects.toThrow(/unsupported database URL/);
});

describe('a postgres connection that loses its server while checked out', () => {
  it('reports the error to onConnectionError instead of crashing, and the pool replaces the connection', async () => {
    const t = await createTestDatabase();
    const errors: Error[] = [];
    const db = await createDb(t.url, { onConnectionError: (e) => errors.push(e) });
    try {
      await db.db.connection().execute(async (conn) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn);
        // Checked out with no statement running: the case pg-pool's own listener does not cover.
        const admin = new pg.Client({ connectionString: t.url });
        await admin.connect();
        try {
          await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
        } finally {
          await admin.end();
        }
        await waitUntil(() => errors.length > 0, 'the pool to report the lost connection', { timeoutMs: 10_000 });
      });
      expect(errors.length).toBeGreaterThan(0);
      const r = await sql<{ one: number }>`select 1 as one`.execute(db.db);
      expect(r.rows[0].one).toBe(1);
    } finally {
      await db.close();
      await t.drop();
    }
  });

  it('a refused server: queries fail as UNAVAILABLE "database unavailable (connection refused)", pingDb rejects', async () => {
    const db = await createDb('postgres://postgres@127.0.0.1:1/none', { migrate: false, connectTimeoutMs: 1000 });
    try {
      const e = await sql`select 1`.execute(db.db).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(dbError(e)).toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE', message: 'database unavailable (connection refused)' });
      await expect(pingDb(db.db, 1000)).rejects.toBeDefined();
    } finally {
      await db.close();
    }
  });
});

describe('opening a database that cannot be reached', () => {
  it.each([
    ['refused', 'postgres://bob:s3cret@127.0.0.1:1/none', 'connection refused'],
    ['missing', 'postgres://postgres@127.0.0.1:5432/llmgw_no_such_database', 'the database does not exist'],
  ])('%s: UNAVAILABLE naming the database (without its password) and why', async (_what, url, reason) => {
    const e = await createDb(url, { connectTimeoutMs: 5000 }).then(
      (db) => db.close(),
      (x: unknown) => x,
    );
    const shown = url.replace(':s3cret@', ':***@');
    expect(e).toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE', message: `cannot open the database ${shown}: ${reason}` });
    expect(String((e as Error).message)).not.toContain('s3cret');
  });
});

describe('migration 0004: key names unique per project', () => {
  it('renames duplicates made before it (the oldest keeps its name), then refuses new ones', async () => {
    const db = await createDb('pglite:memory', { migrate: false });
    try {
      const migrator = new Migrator({
        db: db.db,
        provider: { getMigrations: async () => MIGRATIONS },
        migrationTableName: 'llmgw_migrations',
        migrationLockTableName: 'llmgw_migrations_lock',
      });
      expect((await migrator.migrateTo('0003_usage_rollup_status')).error).toBeUndefined();
      await db.db.insertInto('organizations').values({ id: 'org_1', name: 'o', created_at: 1 }).execute();
      await db.db.insertInto('teams').values({ id: 'team_1', org_id: 'org_1', name: 't', created_at: 1 }).execute();
      await db.db.insertInto('projects').values({ id: 'proj_1', team_id: 'team_1', name: 'p', band: null, created_at: 1 }).execute();
      const key = (id: string, name: string, at: number) => ({
        id,
        key_hash: `h-${id}`,
        key_prefix: 'sk-llmgw-x',
        name,
        project_id: 'proj_1',
        band: null,
        routing_profile: null,
        created_at: at,
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
      });
      await db.db
        .insertInto('api_keys')
        .values([key('key_b', 'ci', 2), key('key_a', 'ci', 1), key('key_c', 'ci', 3), key('key_d', 'other', 1)])
        .execute();
      expect(await migrateToLatest(db.db)).toEqual(Object.keys(MIGRATIONS).filter((n) => n > '0003_usage_rollup_status'));
      const rows = await db.db.selectFrom('api_keys').select(['id', 'name']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: 'key_a', name: 'ci' },
        { id: 'key_b', name: 'ci #key_b' },
        { id: 'key_c', name: 'ci #key_c' },
        { id: 'key_d', name: 'other' },
      ]);
      const dup = await db.db
        .insertInto('api_keys')
        .values(key('key_e', 'ci', 4))
        .execute()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isUniqueViolation(dup)).toBe(true);
    } finally {
      await db.close();
    }
  });
});

import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations';
import { PGliteDialect } from './pglite-dialect';
import { openPglite } from './pglite-template';
import type { Database } from './schema';

export type DbKind = 'postgres' | 'pglite';

/** A migrated database handle. */
export interface Db {
  readonly db: Kysely<Database>;
  readonly kind: DbKind;
  /** The URL with any password masked, for logs. */
  readonly displayUrl: string;
  close(): Promise<void>;
}

/** int8 as a JS number: ids, millis and micro-units all stay below 2^53. */
function pgTypes() {
  return {
    getTypeParser(oid: number, format?: any) {
      if (oid === 20) return (v: string) => Number(v);
      return (pg.types.getTypeParser as any)(oid, format);
    },
  };
}

/**
 * Opens and migrates a database: `postgres://…` (pg pool), `pglite:memory`
 * (embedded, in memory) or `pglite:<dir>` (embedded, on disk).
 */
export async function createDb(url: string, opts: { migrate?: boolean; poolSize?: number } = {}): Promise<Db> {
  let db: Kysely<Database>;
  let kind: DbKind;
  if (url.startsWith('pglite:')) {
    const where = url.slice('pglite:'.length);
    // A new database loads the initdb template when there is one (pglite-template.ts).
    const { lite } = await openPglite(where === 'memory' || where === '' ? undefined : where);
    db = new Kysely<Database>({ dialect: new PGliteDialect(lite) });
    kind = 'pglite';
  } else if (/^postgres(ql)?:\/\//.test(url)) {
    const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, types: pgTypes() as any });
    // An idle client losing its server must not crash the process.
    pool.on('error', () => {});
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    kind = 'postgres';
  } else {
    throw new Error(`unsupported database URL "${url}" (use postgres://…, pglite:memory or pglite:<dir>)`);
  }
  try {
    if (opts.migrate !== false) await migrateToLatest(db);
  } catch (e) {
    await db.destroy().catch(() => {});
    throw e;
  }
  return { db, kind, displayUrl: url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@'), close: () => db.destroy() };
}

/** Cheap liveness probe. */
export async function pingDb(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

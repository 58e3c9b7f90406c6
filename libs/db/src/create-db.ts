import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { LlmgwError } from '@llmgw/errors';
import { unavailableReason } from './errors';
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

/** How a postgres:// pool waits on the database (docs/configuration.md, accounting `database_*`). */
export interface DbOptions {
  migrate?: boolean;
  poolSize?: number;
  /** Longest wait for a new connection, ms (default 5000). */
  connectTimeoutMs?: number;
  /**
   * Longest a statement may run, ms (default 10000): the server cancels it
   * (`statement_timeout`), and the client gives up on a connection that has
   * not answered 1 s after that (a hung server) and closes it.
   */
  statementTimeoutMs?: number;
  /** Told of every error a connection emits (logged and counted by the caller); never thrown. */
  onConnectionError?: (err: Error) => void;
}

/**
 * Opens and migrates a database: `postgres://…` (pg pool), `pglite:memory`
 * (embedded, in memory) or `pglite:<dir>` (embedded, on disk).
 */
export async function createDb(url: string, opts: DbOptions = {}): Promise<Db> {
  let db: Kysely<Database>;
  let kind: DbKind;
  if (url.startsWith('pglite:')) {
    const where = url.slice('pglite:'.length);
    // A new database loads the initdb template when there is one (pglite-template.ts).
    const { lite } = await openPglite(where === 'memory' || where === '' ? undefined : where);
    db = new Kysely<Database>({ dialect: new PGliteDialect(lite) });
    kind = 'pglite';
  } else if (/^postgres(ql)?:\/\//.test(url)) {
    const statementTimeout = opts.statementTimeoutMs ?? 10_000;
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.poolSize ?? 10,
      types: pgTypes() as any,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
      statement_timeout: statementTimeout,
      query_timeout: statementTimeout + 1000,
      keepAlive: true,
    });
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new GuardedPool(pool, opts.onConnectionError) }) });
    kind = 'postgres';
  } else {
    throw new Error(`unsupported database URL "${url}" (use postgres://…, pglite:memory or pglite:<dir>)`);
  }
  const displayUrl = url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
  try {
    if (opts.migrate !== false) await migrateToLatest(db);
  } catch (e) {
    await db.destroy().catch(() => {});
    // A database that cannot be reached at start is the operator's to fix: say which and why, without the password.
    const reason = unavailableReason(e);
    if (reason) throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', `cannot open the database ${displayUrl}: ${reason}`, { cause: e });
    throw e;
  }
  return { db, kind, displayUrl, close: () => db.destroy() };
}

/**
 * The pg pool as kysely sees it, made safe for a database that drops or
 * stops answering (docs/operations.md, "What happens when the database …"):
 * every connection has an error listener (pg-pool's covers only idle ones; a
 * checked-out connection that loses its server would otherwise emit an
 * unhandled 'error' and end the process), and a connection that failed
 * (lost, reset, or no answer within the statement timeout) is closed when it
 * is released instead of going back to the pool. Once failed, its further
 * statements (kysely's ROLLBACK) fail at once rather than queue behind a hung
 * server; closing it makes the server roll back whatever it had begun.
 */
class GuardedPool implements PostgresPool {
  private readonly broken = new WeakSet<pg.PoolClient>();

  constructor(
    private readonly pool: pg.Pool,
    onError?: (err: Error) => void,
  ) {
    const report = (err: Error) => {
      try {
        onError?.(err);
      } catch {
        // a failing reporter must not turn a lost connection into a crash
      }
    };
    // pg-pool re-emits an idle client's error here (and removes the client); the
    // client's own listener below has reported it already.
    pool.on('error', () => {});
    pool.on('connect', (client) => {
      client.on('error', (err) => {
        this.broken.add(client);
        report(err);
      });
    });
  }

  async connect(): Promise<PostgresPoolClient> {
    const c = await this.pool.connect();
    // A fresh wrapper per checkout (kysely keys its connection state by this object).
    return {
      query: ((...args: unknown[]) => {
        if (this.broken.has(c)) return Promise.reject(new Error('Connection terminated: this connection failed and is being closed'));
        const r = (c.query as (...a: unknown[]) => unknown)(...args);
        if (r && typeof (r as Promise<unknown>).then === 'function') {
          return (r as Promise<unknown>).catch((e: unknown) => {
            if (connectionFailed(e)) this.broken.add(c);
            throw e;
          });
        }
        return r;
      }) as PostgresPoolClient['query'],
      release: (destroy?: boolean) => {
        const bad = Boolean(destroy) || this.broken.has(c);
        this.broken.delete(c);
        c.release(bad ? true : undefined);
      },
    };
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/** The connection itself failed (lost, refused, timed out), not just one statement (a conflict, a constraint). */
function connectionFailed(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return unavailableReason(e) !== undefined && code !== '40001' && code !== '40P01';
}

/**
 * Liveness probe with its own deadline: rejects with UNAVAILABLE after
 * `timeoutMs` (default 500) when the database does not answer, so /readyz
 * answers while the database hangs.
 */
export async function pingDb(db: Kysely<Database>, timeoutMs = 500): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ping = sql`select 1`.execute(db);
  ping.catch(() => {});
  try {
    await Promise.race([
      ping,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new LlmgwError('LLMGW_ERR_UNAVAILABLE', `database unavailable (no answer within ${timeoutMs} ms)`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

import type { PGlite } from '@electric-sql/pglite';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';

/**
 * A Kysely dialect over one PGlite instance. PGlite is a single connection, so
 * the driver hands it to one holder at a time: queries and transactions never
 * interleave (kysely-pglite loads only from ESM, hence this small driver).
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pg: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pg);
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pg: PGlite) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const r = await this.pg.query<R>(q.sql, q.parameters as any[]);
    const affected = (r as { affectedRows?: number }).affectedRows;
    return { rows: r.rows, ...(affected !== undefined ? { numAffectedRows: BigInt(affected) } : {}) };
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite dialect: streaming queries are not supported');
  }
}

class PGliteDriver implements Driver {
  private readonly conn: PGliteConnection;
  private tail: Promise<void> = Promise.resolve();
  private release?: () => void;

  constructor(private readonly pg: PGlite) {
    this.conn = new PGliteConnection(pg);
  }

  async init(): Promise<void> {
    await this.pg.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    await prev;
    this.release = release;
    return this.conn;
  }

  async beginTransaction(c: DatabaseConnection): Promise<void> {
    await this.pg.exec('BEGIN');
    void c;
  }

  async commitTransaction(): Promise<void> {
    await this.pg.exec('COMMIT');
  }

  async rollbackTransaction(): Promise<void> {
    await this.pg.exec('ROLLBACK');
  }

  async releaseConnection(): Promise<void> {
    const r = this.release;
    this.release = undefined;
    r?.();
  }

  async destroy(): Promise<void> {
    await this.tail;
    await this.pg.close();
  }
}

import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The shared test server (trust auth); override with LLMGW_TEST_PG_URL. */
export const TEST_PG_ADMIN_URL = process.env.LLMGW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Creates a fresh database on the test server and returns its URL plus a drop
 * function. Tests use their own database and drop only what they created.
 */
export async function createTestDatabase(prefix = 'llmgw_t'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(TEST_PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

import { type Kysely, type Migration } from 'kysely';

/**
 * People (docs/portal.md): accounts with a scrypt password hash, a status
 * (pending → active ⇄ suspended) and a staff role; their sessions (only the
 * token's hash is stored); one-time claim links (only the token's hash; a
 * key's secret is sealed with the token itself); and which keys a person
 * issued, so suspending them revokes those keys.
 */
export const accountsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.references('projects.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('sessions')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('sessions_by_account').on('sessions').column('account_id').execute();
    await db.schema
      .createTable('claim_links')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
      .addColumn('key_id', 'text')
      .addColumn('sealed', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema
      .createTable('account_keys')
      .addColumn('key_id', 'text', (c) => c.primaryKey().references('api_keys.id'))
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .execute();
    await db.schema.createIndex('account_keys_by_account').on('account_keys').column('account_id').execute();
  },
};

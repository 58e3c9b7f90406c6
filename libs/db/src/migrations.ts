import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { accountsMigration } from './migration-0005-accounts';
import { capacityProfilesMigration } from './capacity-profiles';
import { usageRollupsMigration } from './migration-0008-usage-rollups';
import { usageAdapterMigration } from './migration-0009-usage-adapter';

/** The migrations, in order; names sort lexically. Never edit one that has shipped. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001_tenancy_usage_audit': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('organizations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('teams')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('teams_org_name', ['org_id', 'name'])
        .execute();
      await db.schema
        .createTable('projects')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('band', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('projects_team_name', ['team_id', 'name'])
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('key_prefix', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('band', 'text')
        .addColumn('routing_profile', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .addColumn('last_used_at', 'bigint')
        .execute();
      await db.schema.createIndex('api_keys_by_project').on('api_keys').column('project_id').execute();
      await db.schema
        .createTable('limits')
        .addColumn('scope_type', 'text', (c) => c.notNull())
        .addColumn('scope_id', 'text', (c) => c.notNull())
        .addColumn('rpm', 'integer')
        .addColumn('tpm', 'integer')
        .addColumn('budget_micros', 'bigint')
        .addColumn('budget_period', 'text')
        .addColumn('allowed_models', 'text')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('limits_pk', ['scope_type', 'scope_id'])
        .execute();
      await db.schema
        .createTable('usage')
        .addColumn('request_id', 'text', (c) => c.primaryKey())
        .addColumn('ts', 'bigint', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('served_model', 'text', (c) => c.notNull())
        .addColumn('pool', 'text')
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('prompt_tokens', 'integer', (c) => c.notNull())
        .addColumn('completion_tokens', 'integer', (c) => c.notNull())
        .addColumn('cached_tokens', 'integer', (c) => c.notNull())
        .addColumn('ttft_ms', 'integer')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('queue_ms', 'integer')
        .addColumn('cost_micros', 'bigint', (c) => c.notNull())
        .addColumn('rolled_up', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('usage_by_key_ts').on('usage').columns(['key_id', 'ts']).execute();
      await db.schema.createIndex('usage_unrolled').on('usage').column('rolled_up').where(sql.ref('rolled_up'), '=', 0).execute();
      await db.schema.createIndex('usage_by_ts').on('usage').column('ts').execute();
      await db.schema
        .createTable('usage_rollup')
        .addColumn('hour_ts', 'bigint', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('requests', 'bigint', (c) => c.notNull())
        .addColumn('prompt_tokens', 'bigint', (c) => c.notNull())
        .addColumn('completion_tokens', 'bigint', (c) => c.notNull())
        .addColumn('cached_tokens', 'bigint', (c) => c.notNull())
        .addColumn('cost_micros', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_rollup_pk', ['hour_ts', 'key_id', 'model'])
        .execute();
      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'bigserial', (c) => c.primaryKey())
        .addColumn('ts', 'bigint', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target_type', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        .addColumn('details', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_by_ts').on('audit_log').column('ts').execute();
    },
  },
  '0002_usage_record_id': {
    // A client may send the same x-request-id twice (its own retries); the
    // record id, minted per record, is what deduplicates redeliveries.
    async up(db: Kysely<any>) {
      await db.schema.alterTable('usage').addColumn('record_id', 'text').execute();
      await sql`update usage set record_id = request_id`.execute(db);
      await db.schema
        .alterTable('usage')
        .alterColumn('record_id', (c) => c.setNotNull())
        .execute();
      await db.schema.alterTable('usage').dropConstraint('usage_pkey').execute();
      await db.schema.alterTable('usage').addPrimaryKeyConstraint('usage_pkey', ['record_id']).execute();
      await db.schema.createIndex('usage_by_request').on('usage').column('request_id').execute();
    },
  },
  '0003_usage_rollup_status': {
    // Refused and failed requests are counted apart from served ones: the
    // rollup keeps the HTTP status. Rows rolled up before this migration mixed
    // every status; they are kept as 200 (served) — their split is not known.
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('usage_rollup')
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(200))
        .execute();
      await db.schema.alterTable('usage_rollup').dropConstraint('usage_rollup_pk').execute();
      await db.schema.alterTable('usage_rollup').addPrimaryKeyConstraint('usage_rollup_pk', ['hour_ts', 'key_id', 'model', 'status']).execute();
    },
  },
  '0004_key_names_admin_requests': {
    // Key names become unique per project. Duplicates made before this
    // migration keep their oldest holder's name; the others get " #<id>".
    // admin_requests holds the results of idempotent admin writes.
    async up(db: Kysely<any>) {
      await sql`update api_keys k set name = k.name || ' #' || k.id
        where exists (select 1 from api_keys o where o.project_id = k.project_id and o.name = k.name
          and (o.created_at < k.created_at or (o.created_at = k.created_at and o.id < k.id)))`.execute(db);
      await db.schema.alterTable('api_keys').addUniqueConstraint('api_keys_project_name', ['project_id', 'name']).execute();
      await db.schema
        .createTable('admin_requests')
        .addColumn('request_key', 'text', (c) => c.primaryKey())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('response', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('admin_requests_by_time').on('admin_requests').column('created_at').execute();
    },
  },
  '0005_accounts': accountsMigration,
  '0006_capacity_profiles': capacityProfilesMigration,
  '0008_usage_rollups': usageRollupsMigration,
  '0009_usage_adapter': usageAdapterMigration,
};

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

/** Applies every pending migration; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(),
    migrationTableName: 'llmgw_migrations',
    migrationLockTableName: 'llmgw_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  // Thrown as it came (an Error from another realm, e.g. a test VM, is not `instanceof Error` here, but keeps its `code`).
  if (error) throw typeof error === 'object' && error !== null && 'message' in error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

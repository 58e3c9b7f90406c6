import { type CreateTableBuilder, type Kysely, type Migration, sql } from 'kysely';

/**
 * Coarser usage rollups for reads over long windows (docs/portal.md, "Scale";
 * docs/performance.md, "Portal"): `usage_rollup_day` (per UTC day, key,
 * served model and status — 24× fewer rows than the hourly rollup) answers
 * fleet-wide totals grouped by key, project, team, org or model, and
 * `usage_rollup_model_hour` (per hour, model and status, no key) answers the
 * fleet-wide hourly series. The rollup job fills all three in one statement.
 * The hourly rollup gains indexes by key and by project for scoped reads.
 * Existing hourly rollups are folded into the new tables here.
 */
export const usageRollupsMigration: Migration = {
  async up(db: Kysely<any>) {
    const sums = (t: CreateTableBuilder<string, string>): CreateTableBuilder<string, string> =>
      t
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('requests', 'bigint', (c) => c.notNull())
        .addColumn('prompt_tokens', 'bigint', (c) => c.notNull())
        .addColumn('completion_tokens', 'bigint', (c) => c.notNull())
        .addColumn('cached_tokens', 'bigint', (c) => c.notNull())
        .addColumn('cost_micros', 'bigint', (c) => c.notNull());
    await sums(
      db.schema
        .createTable('usage_rollup_day')
        .addColumn('day_ts', 'bigint', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull()),
    )
      .addPrimaryKeyConstraint('usage_rollup_day_pk', ['day_ts', 'key_id', 'model', 'status'])
      .execute();
    await sums(
      db.schema
        .createTable('usage_rollup_model_hour')
        .addColumn('hour_ts', 'bigint', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull()),
    )
      .addPrimaryKeyConstraint('usage_rollup_model_hour_pk', ['hour_ts', 'model', 'status'])
      .execute();
    await db.schema.createIndex('usage_rollup_by_key').on('usage_rollup').columns(['key_id', 'hour_ts']).execute();
    await db.schema.createIndex('usage_rollup_by_project').on('usage_rollup').columns(['project_id', 'hour_ts']).execute();
    await sql`insert into usage_rollup_day (day_ts, key_id, project_id, model, status, requests, prompt_tokens, completion_tokens, cached_tokens, cost_micros)
      select (hour_ts / 86400000) * 86400000, key_id, max(project_id), model, status, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cost_micros)
      from usage_rollup group by 1, 2, 4, 5`.execute(db);
    await sql`insert into usage_rollup_model_hour (hour_ts, model, status, requests, prompt_tokens, completion_tokens, cached_tokens, cost_micros)
      select hour_ts, model, status, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cost_micros)
      from usage_rollup group by 1, 2, 3`.execute(db);
  },
};

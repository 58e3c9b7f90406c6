import type { Kysely, Migration } from 'kysely';

/**
 * Usage per LoRA adapter (docs/accounting.md, "Usage per adapter"): raw usage
 * rows carry the adapter that served them (`''` for a plain request), and the
 * rollups by key — hourly and daily — keep it as a dimension, so `ctl usage
 * --by adapter` reads rolled-up history too. The fleet-wide hourly rollup
 * (no key) does not: it answers the hourly series, not per-adapter reads.
 * Existing rows get `''`.
 */
export const usageAdapterMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('usage')
      .addColumn('adapter', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    for (const [table, time] of [
      ['usage_rollup', 'hour_ts'],
      ['usage_rollup_day', 'day_ts'],
    ] as const) {
      await db.schema
        .alterTable(table)
        .addColumn('adapter', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.alterTable(table).dropConstraint(`${table}_pk`).execute();
      await db.schema.alterTable(table).addPrimaryKeyConstraint(`${table}_pk`, [time, 'key_id', 'model', 'adapter', 'status']).execute();
    }
  },
};

import type { Kysely, Migration, Selectable } from 'kysely';

/**
 * The capacity_profiles table (docs/capacity.md): one row per (model,
 * launch profile), what `llmgw ctl bench --save` measured. Its own file so
 * that it merges beside the other tables; `CapacityDatabase` joins
 * `Database` where it is queried (`db.withTables<CapacityDatabase>()`).
 */
export type CapacityProfilesTable = {
  model: string;
  profile: string;
  gpu_class: string;
  max_concurrency_at_slo: number;
  throughput_tok_per_sec: number;
  ttft_p99_ms: number;
  tpot_p99_ms: number;
  slo_ttft_p99_ms: number;
  slo_tpot_p99_ms: number;
  relative_cost: number;
  engine: string;
  engine_version: string;
  /** JSON array of strings. */
  engine_args: string;
  prompt_tokens: number;
  output_tokens: number;
  engine_waiting_at_slo: number;
  kv_usage_at_slo: number;
  measured_at: string | number | bigint;
  replica: string;
  saved_by: string;
  saved_at: string | number | bigint;
  result_json: string;
};

export type CapacityDatabase = {
  capacity_profiles: CapacityProfilesTable;
};

export type CapacityProfileRow = Selectable<CapacityProfilesTable>;

/** Migration 0006: the table. */
export const capacityProfilesMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('capacity_profiles')
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('profile', 'text', (c) => c.notNull())
      .addColumn('gpu_class', 'text', (c) => c.notNull())
      .addColumn('max_concurrency_at_slo', 'integer', (c) => c.notNull())
      .addColumn('throughput_tok_per_sec', 'double precision', (c) => c.notNull())
      .addColumn('ttft_p99_ms', 'double precision', (c) => c.notNull())
      .addColumn('tpot_p99_ms', 'double precision', (c) => c.notNull())
      .addColumn('slo_ttft_p99_ms', 'double precision', (c) => c.notNull())
      .addColumn('slo_tpot_p99_ms', 'double precision', (c) => c.notNull())
      .addColumn('relative_cost', 'double precision', (c) => c.notNull())
      .addColumn('engine', 'text', (c) => c.notNull())
      .addColumn('engine_version', 'text', (c) => c.notNull())
      .addColumn('engine_args', 'text', (c) => c.notNull())
      .addColumn('prompt_tokens', 'integer', (c) => c.notNull())
      .addColumn('output_tokens', 'integer', (c) => c.notNull())
      .addColumn('engine_waiting_at_slo', 'integer', (c) => c.notNull())
      .addColumn('kv_usage_at_slo', 'double precision', (c) => c.notNull())
      .addColumn('measured_at', 'bigint', (c) => c.notNull())
      .addColumn('replica', 'text', (c) => c.notNull())
      .addColumn('saved_by', 'text', (c) => c.notNull())
      .addColumn('saved_at', 'bigint', (c) => c.notNull())
      .addColumn('result_json', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('capacity_profiles_pk', ['model', 'profile'])
      .execute();
  },
};

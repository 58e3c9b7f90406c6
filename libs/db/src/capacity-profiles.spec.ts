import { createDb } from './create-db';
import type { CapacityDatabase } from './capacity-profiles';

describe('migration 0006: capacity_profiles', () => {
  it('holds one profile per (model, launch profile)', async () => {
    const db = await createDb('pglite:memory');
    try {
      const t = db.db.withTables<CapacityDatabase>();
      const row = {
        model: 'm',
        profile: 'p',
        gpu_class: 'h100-80g',
        max_concurrency_at_slo: 8,
        throughput_tok_per_sec: 80.5,
        ttft_p99_ms: 120,
        tpot_p99_ms: 20,
        slo_ttft_p99_ms: 2000,
        slo_tpot_p99_ms: 50,
        relative_cost: 1,
        engine: 'sim',
        engine_version: '0.1.0',
        engine_args: '[]',
        prompt_tokens: 16,
        output_tokens: 10,
        engine_waiting_at_slo: 0,
        kv_usage_at_slo: 0.1,
        measured_at: 1,
        replica: 'r',
        saved_by: 'me',
        saved_at: 2,
        result_json: '{}',
      };
      await t.insertInto('capacity_profiles').values(row).execute();
      await expect(t.insertInto('capacity_profiles').values(row).execute()).rejects.toThrow(/duplicate key|unique/);
      const [got] = await t.selectFrom('capacity_profiles').selectAll().execute();
      expect({
        ...got,
        throughput_tok_per_sec: Number(got.throughput_tok_per_sec),
        measured_at: Number(got.measured_at),
        saved_at: Number(got.saved_at),
      }).toEqual(row);
    } finally {
      await db.close();
    }
  });
});

/**
 * Capacity profiles in Postgres (docs/capacity.md): what `llmgw ctl bench
 * --save` measured, one row per (model, launch profile); every save and
 * delete is in the audit log in the same transaction.
 */
import type { Kysely } from 'kysely';
import type { accountingV1 } from '@llmgw/contracts';
import { type CapacityDatabase, type CapacityProfileRow, type Database } from '@llmgw/db';
import { LlmgwError } from '@llmgw/errors';

type Db = Kysely<Database & CapacityDatabase>;

const NAME = /^[A-Za-z0-9._:/-]{1,200}$/;
const MAX_RESULT_JSON = 256 * 1024;

function checkName(v: string, field: string): void {
  if (!NAME.test(v))
    throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${field} must be 1 to 200 characters of A-Z, a-z, 0-9, ".", "_", ":", "/" or "-"`, { param: field });
}

function nonNegative(v: number, field: string): number {
  if (!Number.isFinite(v) || v < 0) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${field} must be a finite number ≥ 0`, { param: field });
  return v;
}

export function toWire(r: CapacityProfileRow): accountingV1.CapacityProfile {
  return {
    model: r.model,
    profile: r.profile,
    gpuClass: r.gpu_class,
    maxConcurrencyAtSlo: r.max_concurrency_at_slo,
    throughputTokPerSec: Number(r.throughput_tok_per_sec),
    ttftP99Ms: Number(r.ttft_p99_ms),
    tpotP99Ms: Number(r.tpot_p99_ms),
    sloTtftP99Ms: Number(r.slo_ttft_p99_ms),
    sloTpotP99Ms: Number(r.slo_tpot_p99_ms),
    relativeCost: Number(r.relative_cost),
    engine: r.engine,
    engineVersion: r.engine_version,
    engineArgs: JSON.parse(r.engine_args) as string[],
    promptTokens: r.prompt_tokens,
    outputTokens: r.output_tokens,
    engineWaitingAtSlo: r.engine_waiting_at_slo,
    kvUsageAtSlo: Number(r.kv_usage_at_slo),
    measuredAtMs: Number(r.measured_at),
    replica: r.replica,
    savedBy: r.saved_by,
    resultJson: r.result_json,
  };
}

export class CapacityStore {
  private readonly db: Db;

  constructor(
    db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {
    this.db = db.withTables<CapacityDatabase>();
  }

  async save(actor: string, p: accountingV1.CapacityProfile__Output): Promise<CapacityProfileRow> {
    checkName(p.model, 'model');
    checkName(p.profile, 'profile');
    if (p.gpuClass) checkName(p.gpuClass, 'gpu_class');
    if (p.resultJson.length > MAX_RESULT_JSON) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'result_json is at most 256 KiB', { param: 'result_json' });
    if (p.engineArgs.length > 200 || p.engineArgs.some((a) => a.length > 1000))
      throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'engine_args: at most 200 arguments of 1000 characters', { param: 'engine_args' });
    const row = {
      model: p.model,
      profile: p.profile,
      gpu_class: p.gpuClass,
      max_concurrency_at_slo: p.maxConcurrencyAtSlo,
      throughput_tok_per_sec: nonNegative(p.throughputTokPerSec, 'throughput_tok_per_sec'),
      ttft_p99_ms: nonNegative(p.ttftP99Ms, 'ttft_p99_ms'),
      tpot_p99_ms: nonNegative(p.tpotP99Ms, 'tpot_p99_ms'),
      slo_ttft_p99_ms: nonNegative(p.sloTtftP99Ms, 'slo_ttft_p99_ms'),
      slo_tpot_p99_ms: nonNegative(p.sloTpotP99Ms, 'slo_tpot_p99_ms'),
      relative_cost: nonNegative(p.relativeCost || 1, 'relative_cost'),
      engine: p.engine.slice(0, 100),
      engine_version: p.engineVersion.slice(0, 200),
      engine_args: JSON.stringify(p.engineArgs),
      prompt_tokens: p.promptTokens,
      output_tokens: p.outputTokens,
      engine_waiting_at_slo: p.engineWaitingAtSlo,
      kv_usage_at_slo: nonNegative(p.kvUsageAtSlo, 'kv_usage_at_slo'),
      measured_at: Number(p.measuredAtMs) || this.now(),
      replica: p.replica.slice(0, 200),
      saved_by: actor,
      saved_at: this.now(),
      result_json: p.resultJson,
    };
    return this.db.transaction().execute(async (tx) => {
      const saved = await tx
        .insertInto('capacity_profiles')
        .values(row)
        .onConflict((oc) => oc.columns(['model', 'profile']).doUpdateSet(row))
        .returningAll()
        .executeTakeFirstOrThrow();
      const { result_json: _omit, ...details } = row;
      await tx
        .insertInto('audit_log')
        .values({
          ts: this.now(),
          actor,
          action: 'capacity.save',
          target_type: 'capacity_profile',
          target_id: `${p.model}/${p.profile}`,
          details: JSON.stringify(details),
        })
        .execute();
      return saved;
    });
  }

  async list(model?: string): Promise<CapacityProfileRow[]> {
    let q = this.db.selectFrom('capacity_profiles').selectAll();
    if (model) q = q.where('model', '=', model);
    return q.orderBy('model').orderBy('profile').execute();
  }

  async get(model: string, profile: string): Promise<CapacityProfileRow> {
    const r = await this.db.selectFrom('capacity_profiles').selectAll().where('model', '=', model).where('profile', '=', profile).executeTakeFirst();
    if (!r)
      throw new LlmgwError(
        'LLMGW_ERR_NOT_FOUND',
        `no capacity profile for ${model} / ${profile}; measure one with llmgw ctl bench ${model} --profile ${profile} --save`,
      );
    return r;
  }

  async delete(actor: string, model: string, profile: string): Promise<CapacityProfileRow> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx.deleteFrom('capacity_profiles').where('model', '=', model).where('profile', '=', profile).returningAll().executeTakeFirst();
      if (!r) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `no capacity profile for ${model} / ${profile}`);
      await tx
        .insertInto('audit_log')
        .values({
          ts: this.now(),
          actor,
          action: 'capacity.delete',
          target_type: 'capacity_profile',
          target_id: `${model}/${profile}`,
          details: JSON.stringify({ max_concurrency_at_slo: r.max_concurrency_at_slo, gpu_class: r.gpu_class }),
        })
        .execute();
      return r;
    });
  }
}

import type { Database, LimitRow } from '@llmgw/db';
import { LlmgwError } from '@llmgw/errors';
import type { BudgetPeriod, ScopeType } from '@llmgw/tenancy';
import type { Transaction } from 'kysely';
import { PG_INT_MAX, checkName } from './tenancy-checks';

/** Fields of a limit row; undefined = not limited at this level. */
export interface LimitInput {
  rpm?: number;
  tpm?: number;
  budgetMicros?: number;
  budgetPeriod?: BudgetPeriod;
  /** undefined = every model; [] = none. */
  allowedModels?: string[];
}

/** Checks a limit's fields; INVALID_ARGUMENT naming the first bad one. */
export function checkLimit(l: LimitInput): void {
  for (const [k, v, max] of [
    ['limit.rpm', l.rpm, PG_INT_MAX],
    ['limit.tpm', l.tpm, PG_INT_MAX],
    ['limit.budget_micros', l.budgetMicros, Number.MAX_SAFE_INTEGER],
  ] as const) {
    if (v !== undefined && (!Number.isSafeInteger(v) || v < 0 || v > max))
      throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${k} must be an integer from 0 to ${max}`, { param: k });
  }
  if (l.budgetPeriod !== undefined && l.budgetPeriod !== 'day' && l.budgetPeriod !== 'month')
    throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'limit.budget_period must be "day" or "month"', { param: 'limit.budget_period' });
  if (l.allowedModels !== undefined) {
    if (l.allowedModels.length > 1000)
      throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'limit.allowed_models holds at most 1000 models', { param: 'limit.allowed_models' });
    for (const m of l.allowedModels) checkName(m, 'limit.allowed_models');
  }
}

/** The limits row for a scope, stamped `now`. */
export function limitRow(type: ScopeType, id: string, l: LimitInput, now: number): LimitRow {
  return {
    scope_type: type,
    scope_id: id,
    rpm: l.rpm ?? null,
    tpm: l.tpm ?? null,
    budget_micros: l.budgetMicros ?? null,
    budget_period: l.budgetMicros !== undefined ? (l.budgetPeriod ?? 'month') : null,
    allowed_models: l.allowedModels === undefined ? null : JSON.stringify([...new Set(l.allowedModels)].sort()),
    updated_at: now,
  };
}

/** Inserts or replaces the scope's limits row. */
export async function upsertLimit(tx: Transaction<Database>, row: LimitRow): Promise<void> {
  await tx
    .insertInto('limits')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['scope_type', 'scope_id']).doUpdateSet({
        rpm: row.rpm,
        tpm: row.tpm,
        budget_micros: row.budget_micros,
        budget_period: row.budget_period,
        allowed_models: row.allowed_models,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** The audit details of a limit.set event. */
export function limitDetails(row: LimitRow): object {
  return {
    rpm: row.rpm,
    tpm: row.tpm,
    budget_micros: row.budget_micros,
    budget_period: row.budget_period,
    allowed_models: row.allowed_models === null ? null : JSON.parse(row.allowed_models),
  };
}

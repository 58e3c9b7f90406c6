import { type ScopeType } from '@llmgw/tenancy';
import { detailOf, nameProblem } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { randomBytes } from 'node:crypto';

const ID_PREFIX: Record<ScopeType, string> = { org: 'org_', team: 'team_', project: 'proj_', key: 'key_' };

export function newId(type: ScopeType): string {
  return ID_PREFIX[type] + randomBytes(9).toString('base64url').replace(/[-_]/g, 'x');
}

export const notFound = (what: string, ref: string) => new LlmgwError('LLMGW_ERR_NOT_FOUND', `${what} "${detailOf(ref)}" not found`);

/** Largest value of a Postgres `integer` column (rpm, tpm). */
export const PG_INT_MAX = 2_147_483_647;

export const abandoned = () =>
  new LlmgwError('LLMGW_ERR_UNAVAILABLE', "database unavailable (no answer before the call's deadline; nothing was written)", { retryAfterSeconds: 1 });

/** The name rule (libs/contracts names.ts) for a stored name; INVALID_ARGUMENT naming `field`. */
export function checkName(name: string, field = 'name'): string {
  const problem = nameProblem(name, field);
  if (problem) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', problem, { param: field });
  return name;
}

/** The name rule for a reference (an id or a name) that is looked up. */
export function checkRef(ref: string, field: string, max?: number): void {
  const problem = nameProblem(ref, field, { max });
  if (problem) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', problem, { param: field });
}

/** A time in unix ms that a bigint column and a JS number both hold exactly; `signed` allows negatives. */
export function checkTime(v: number, field: string, signed = false): void {
  if (!Number.isSafeInteger(v) || (!signed && v < 0)) {
    throw new LlmgwError(
      'LLMGW_ERR_INVALID_ARGUMENT',
      `${field} must be an integer ${signed ? 'between -(2^53-1) and 2^53-1' : 'from 0 to 2^53-1'} (milliseconds since 1970)`,
      { param: field },
    );
  }
}

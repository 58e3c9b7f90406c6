import { type Database, isUniqueViolation } from '@llmgw/db';
import { LlmgwError, isLlmgwError } from '@llmgw/errors';
import { type Kysely, type Transaction } from 'kysely';
import { abandoned } from './tenancy-checks';

/**
 * How one admin write runs (docs/accounting.md, "Retries and request ids"):
 * `requestKey` makes it idempotent (a repeat returns the first result), and
 * once `signal` aborts (the caller's deadline passed) the write is abandoned:
 * it rolls back instead of committing.
 */
export interface WriteOptions {
  requestKey?: string;
  signal?: AbortSignal;
}

/**
 * One admin change in one transaction, with its audit event. With a
 * request key the result is recorded in the same transaction (so it is
 * there exactly when the change is). When the caller's deadline passed
 * before the statements finished, the transaction rolls back instead of
 * committing: a write the caller was told failed does not appear later.
 */
export async function runWrite(
  db: Kysely<Database>,
  now: () => number,
  w: WriteOptions | undefined,
  method: string,
  result: unknown,
  what: string,
  fn: (tx: Transaction<Database>) => Promise<void>,
): Promise<void> {
  if (w?.signal?.aborted) throw abandoned();
  try {
    await db.transaction().execute(async (tx) => {
      await fn(tx);
      if (w?.requestKey) {
        await tx
          .insertInto('admin_requests')
          .values({ request_key: w.requestKey, method, response: JSON.stringify(result), created_at: now() })
          .execute();
      }
      if (w?.signal?.aborted) throw abandoned();
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new LlmgwError('LLMGW_ERR_ALREADY_EXISTS', `${what} already exists`, { cause: e });
    throw e;
  }
}

/**
 * Runs a write once per request key: a key seen before returns the first
 * result (revived from what was stored), also when a concurrent call with
 * the same key won the race.
 */
export async function idempotent<T, S = T>(
  db: Kysely<Database>,
  w: WriteOptions | undefined,
  method: string,
  run: () => Promise<T>,
  revive?: (stored: S) => T,
): Promise<T> {
  const replay = async (): Promise<T | undefined> => {
    if (!w?.requestKey) return undefined;
    const r = await db.selectFrom('admin_requests').selectAll().where('request_key', '=', w.requestKey).executeTakeFirst();
    if (!r) return undefined;
    if (r.method !== method)
      throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `this idempotency key was already used for ${r.method}; use a new one`, {
        param: 'llmgw-idempotency-key',
      });
    const stored = JSON.parse(r.response) as S;
    return revive ? revive(stored) : (stored as unknown as T);
  };
  const prior = await replay();
  if (prior !== undefined) return prior;
  try {
    return await run();
  } catch (e) {
    if (w?.requestKey && isLlmgwError(e) && e.code === 'LLMGW_ERR_ALREADY_EXISTS') {
      const again = await replay();
      if (again !== undefined) return again;
    }
    throw e;
  }
}

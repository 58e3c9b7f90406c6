import type { Database, NewUsageRow } from '@llmgw/db';
import type { LedgerRecord, LimitCounters } from '@llmgw/stores';
import { type BudgetPeriod, type ScopeType, periodBounds, scopeKey } from '@llmgw/tenancy';
import { type Kysely, sql } from 'kysely';

/** How QueryUsage may group its rows. */
export type UsageGroupBy = '' | 'model' | 'adapter' | 'key' | 'project' | 'team' | 'org' | 'hour' | 'status';

/** Every grouping QueryUsage accepts ('' = one total row). */
export const USAGE_GROUPS: readonly UsageGroupBy[] = ['', 'model', 'adapter', 'key', 'project', 'team', 'org', 'hour', 'status'];

const DAY_MS = 86_400_000;

const INT4_MAX = 2_147_483_647;

/** Text as Postgres stores it: it refuses NUL in `text`, so each becomes U+FFFD. */
function text(v: unknown): string {
  const t = String(v);
  return t.includes('\u0000') ? t.replaceAll('\u0000', '\uFFFD') : t;
}

/**
 * A ledger record as a usage row. Numbers are rounded and held to their
 * column's range (`integer` columns to 2^31 − 1, `bigint` ones to 2^53 − 1),
 * and NUL characters in text become U+FFFD: one record with a value Postgres
 * refuses would fail its whole batch, and the ingest retries a failed batch
 * until it is written, so one such record would stop every record behind it.
 */
export function toUsageRow(r: LedgerRecord): NewUsageRow {
  const num = (v: unknown, max: number) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(0, Math.round(v))) : 0);
  const int = (v: unknown) => num(v, INT4_MAX);
  const big = (v: unknown) => num(v, Number.MAX_SAFE_INTEGER);
  const opt = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(INT4_MAX, Math.max(-INT4_MAX, Math.round(v))) : null);
  return {
    record_id: text(r.recordId || r.requestId),
    request_id: text(r.requestId),
    ts: big(r.ts),
    key_id: text(r.keyId),
    project_id: text(r.projectId ?? ''),
    model: text(r.model ?? ''),
    served_model: text(r.servedModel ?? r.model ?? ''),
    adapter: typeof r.adapter === 'string' ? text(r.adapter) : '',
    pool: r.pool == null ? null : text(r.pool),
    status: int(r.status),
    prompt_tokens: int(r.promptTokens),
    completion_tokens: int(r.completionTokens),
    cached_tokens: int(r.cachedTokens),
    ttft_ms: opt(r.ttftMs),
    duration_ms: int(r.durationMs),
    queue_ms: opt(r.queueMs),
    cost_micros: big(r.costMicros),
  };
}

/** The usage columns a batch insert writes, with each one's Postgres array type (migrations.ts). */
const USAGE_COLUMNS = [
  ['record_id', 'text'],
  ['request_id', 'text'],
  ['ts', 'int8'],
  ['key_id', 'text'],
  ['project_id', 'text'],
  ['model', 'text'],
  ['served_model', 'text'],
  ['adapter', 'text'],
  ['pool', 'text'],
  ['status', 'int4'],
  ['prompt_tokens', 'int4'],
  ['completion_tokens', 'int4'],
  ['cached_tokens', 'int4'],
  ['ttft_ms', 'int4'],
  ['duration_ms', 'int4'],
  ['queue_ms', 'int4'],
  ['cost_micros', 'int8'],
] as const satisfies ReadonlyArray<readonly [keyof NewUsageRow, string]>;
const USAGE_COLUMN_LIST = sql.raw(USAGE_COLUMNS.map(([c]) => c).join(', '));

/**
 * The idempotent insert of a batch of usage rows: one array parameter per
 * column, spread into rows by `unnest`. The statement's text is the same
 * whatever the batch size (17 parameters, not 17 per row), so neither
 * accounting nor Postgres builds and parses a statement of thousands of
 * placeholders per batch (docs/performance.md, "The usage ingest's insert").
 */
export function insertUsageRows(rows: NewUsageRow[]) {
  const arrays = USAGE_COLUMNS.map(([c, type]) => sql`${sql.val(rows.map((r) => r[c] ?? null))}::${sql.raw(type)}[]`);
  return sql`insert into usage (${USAGE_COLUMN_LIST}) select * from unnest(${sql.join(arrays)}) on conflict (record_id) do nothing`;
}

/**
 * `last_used_at` of every key of a batch (`lastUse`: key id → its latest
 * record's time) in one statement, not one per key; a key's moves at most
 * once per `intervalMs`, whichever accounting instance writes it
 * (docs/performance.md, "The usage ingest's insert").
 */
export function updateLastUsed(lastUse: Map<string, number>, intervalMs: number) {
  return sql`update api_keys k set last_used_at = u.ts
    from unnest(${sql.val([...lastUse.keys()])}::text[], ${sql.val([...lastUse.values()])}::int8[]) as u(id, ts)
    where k.id = u.id and (k.last_used_at is null or k.last_used_at <= u.ts - ${intervalMs})`;
}

/** The WHERE fragment selecting usage/rollup rows of a scope (by key or project id). */
function scopeFilter(type: ScopeType, id: string) {
  if (type === 'key') return sql`key_id = ${id}`;
  if (type === 'project') return sql`project_id = ${id}`;
  if (type === 'team') return sql`project_id in (select id from projects where team_id = ${id})`;
  return sql`project_id in (select p.id from projects p join teams t on p.team_id = t.id where t.org_id = ${id})`;
}

/**
 * One part of the rollup statement: the `moved` rows summed into `table` by
 * time bucket (`bucketMs` wide, in column `time`), served model and status,
 * and by key and adapter too when `byKey` (migration 0009); an additive upsert.
 */
function foldInto(table: string, time: string, bucketMs: number, byKey: boolean) {
  const t = sql.raw(table);
  const bucket = sql.raw(`(ts / ${bucketMs}) * ${bucketMs}`);
  const keyCols = byKey ? sql`key_id, project_id, ` : sql``;
  const keyVals = byKey ? sql`key_id, max(project_id), ` : sql``;
  const adapter = byKey ? sql`adapter, ` : sql``;
  const sum = (c: string) => sql.raw(`${c} = ${table}.${c} + excluded.${c}`);
  return sql`
        insert into ${t} (${sql.raw(time)}, ${keyCols}model, ${adapter}status, requests, prompt_tokens, completion_tokens, cached_tokens, cost_micros)
        select ${bucket}, ${keyVals}served_model, ${adapter}status, count(*), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cost_micros)
        from moved group by ${bucket}, ${byKey ? sql`key_id, ` : sql``}served_model, ${adapter}status
        on conflict (${sql.raw(time)}, ${byKey ? sql`key_id, ` : sql``}model, ${adapter}status) do update set
          ${sum('requests')}, ${sum('prompt_tokens')}, ${sum('completion_tokens')}, ${sum('cached_tokens')}, ${sum('cost_micros')}
        returning 1`;
}

/**
 * Usage rows: idempotent batch insert, hourly rollups, retention, spend per
 * scope (rollups plus the un-rolled tail, read in one statement so a
 * concurrent rollup cannot double- or under-count), and usage queries.
 */
export class UsageStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Inserts a batch in one transaction; a record id seen before is skipped. Returns rows inserted. */
  async insertBatch(records: LedgerRecord[], lastUsedIntervalMs: number): Promise<number> {
    if (!records.length) return 0;
    const rows = records.map(toUsageRow);
    const lastUse = new Map<string, number>();
    for (const r of rows) lastUse.set(r.key_id, Math.max(lastUse.get(r.key_id) ?? 0, r.ts));
    return this.db.transaction().execute(async (tx) => {
      const res = await insertUsageRows(rows).execute(tx);
      await updateLastUsed(lastUse, lastUsedIntervalMs).execute(tx);
      return Number(res.numAffectedRows ?? 0);
    });
  }

  /**
   * Folds every not-yet-rolled raw row into usage_rollup (hour buckets, by
   * key and served model), usage_rollup_day and usage_rollup_model_hour
   * (migration 0008) and marks it rolled, in one statement: rows
   * inserted concurrently are left for the next run, and a crash rolls back
   * both halves together.
   */
  async rollup(): Promise<number> {
    const r = await sql<{ n: number }>`
      with moved as (
        update usage set rolled_up = 1 where rolled_up = 0
        returning ts, key_id, project_id, served_model, adapter, status, prompt_tokens, completion_tokens, cached_tokens, cost_micros
      ), hourly as (${foldInto('usage_rollup', 'hour_ts', 3_600_000, true)}
      ), daily as (${foldInto('usage_rollup_day', 'day_ts', DAY_MS, true)}
      ), model_hour as (${foldInto('usage_rollup_model_hour', 'hour_ts', 3_600_000, false)}
      )
      select (select count(*) from moved)::int as n`.execute(this.db);
    return r.rows[0]?.n ?? 0;
  }

  /** Deletes raw rows older than the retention window that are already rolled up. */
  async applyRetention(nowMs: number, retentionMs: number): Promise<number> {
    const r = await this.db
      .deleteFrom('usage')
      .where('rolled_up', '=', 1)
      .where('ts', '<', nowMs - retentionMs)
      .executeTakeFirst();
    return Number(r.numDeletedRows ?? 0);
  }

  /** Micro-units a scope spent in [from, to): rollups plus the un-rolled tail. */
  async spend(type: ScopeType, id: string, from: number, to: number): Promise<number> {
    const f = scopeFilter(type, id);
    const r = await sql<{ s: number }>`
      select (
        coalesce((select sum(cost_micros) from usage_rollup where hour_ts >= ${from} and hour_ts < ${to} and ${f}), 0) +
        coalesce((select sum(cost_micros) from usage where rolled_up = 0 and ts >= ${from} and ts < ${to} and ${f}), 0)
      )::bigint as s`.execute(this.db);
    return Number(r.rows[0]?.s ?? 0);
  }

  /**
   * Raises every budget counter to what the database says was spent this
   * period. Idempotent (counters only go up), so it runs at start and on a
   * timer: a restarted router, accounting or Redis keeps the budget spent.
   */
  async reseedBudgets(counters: LimitCounters, nowMs: number): Promise<number> {
    const rows = await this.db.selectFrom('limits').select(['scope_type', 'scope_id', 'budget_period']).where('budget_micros', 'is not', null).execute();
    for (const r of rows) {
      const period = (r.budget_period ?? 'month') as BudgetPeriod;
      const b = periodBounds(period, nowMs);
      const spent = await this.spend(r.scope_type, r.scope_id, b.start, b.end);
      await counters.seedBudget({ scope: scopeKey(r.scope_type, r.scope_id), periodStart: b.start, periodEnd: b.end }, spent);
    }
    return rows.length;
  }

  /**
   * Usage totals in [from, to), optionally grouped; rollups plus the un-rolled
   * tail. `requests` counts served requests (status below 400); `refused`
   * (4xx: limits, auth, bad input, admission) and `failed` (5xx) are counted
   * apart, with the tokens and cost they carried (usually none).
   */
  async query(opts: { scope?: { type: ScopeType; id: string }; from: number; to: number; groupBy: UsageGroupBy }) {
    const f = opts.scope ? scopeFilter(opts.scope.type, opts.scope.id) : sql`true`;
    const g = {
      '': sql`''`,
      model: sql`u.model`,
      adapter: sql`u.adapter`,
      key: sql`u.key_id`,
      project: sql`u.project_id`,
      team: sql`coalesce(o.name || '/' || t.name, u.project_id)`,
      org: sql`coalesce(o.name, u.project_id)`,
      hour: sql`cast(u.hour_ts as text)`,
      status: sql`cast(u.status as text)`,
    }[opts.groupBy];
    const cols = sql`status, requests, prompt_tokens, completion_tokens, cached_tokens, cost_micros`;
    const hourly = (from: number, to: number) =>
      sql`select hour_ts, key_id, project_id, model, adapter, ${cols} from usage_rollup where hour_ts >= ${from} and hour_ts < ${to} and ${f}`;
    // The widest rollup that answers the grouping (docs/portal.md, "Scale"): whole UTC days from the daily
    // rollup and the partial days at either end from the hourly one; the fleet-wide hourly series from the
    // per-model hourly rollup; a scoped hourly series from the hourly rollup by its key/project index.
    const dayFrom = Math.ceil(opts.from / DAY_MS) * DAY_MS;
    const dayTo = Math.floor(opts.to / DAY_MS) * DAY_MS;
    const rolled =
      opts.groupBy === 'hour'
        ? opts.scope
          ? hourly(opts.from, opts.to)
          : sql`select hour_ts, '' as key_id, '' as project_id, model, '' as adapter, ${cols} from usage_rollup_model_hour where hour_ts >= ${opts.from} and hour_ts < ${opts.to}`
        : dayFrom < dayTo
          ? sql`select day_ts, key_id, project_id, model, adapter, ${cols} from usage_rollup_day where day_ts >= ${dayFrom} and day_ts < ${dayTo} and ${f}
              union all ${hourly(opts.from, dayFrom)} union all ${hourly(dayTo, opts.to)}`
          : hourly(opts.from, opts.to);
    const names =
      opts.groupBy === 'team' || opts.groupBy === 'org'
        ? sql`left join projects p on p.id = u.project_id left join teams t on t.id = p.team_id left join organizations o on o.id = t.org_id`
        : sql``;
    const r = await sql<{
      grp: string;
      requests: number;
      refused: number;
      failed: number;
      prompt_tokens: number;
      completion_tokens: number;
      cached_tokens: number;
      cost_micros: number;
    }>`
      with u (hour_ts, key_id, project_id, model, adapter, status, requests, prompt_tokens, completion_tokens, cached_tokens, cost_micros) as (
        ${rolled}
        union all
        select (ts / 3600000) * 3600000, key_id, project_id, served_model, adapter, status, 1, prompt_tokens, completion_tokens, cached_tokens, cost_micros
          from usage where rolled_up = 0 and ts >= ${opts.from} and ts < ${opts.to} and ${f}
      )
      select ${g} as grp,
        coalesce(sum(case when u.status < 400 then u.requests end), 0)::bigint as requests,
        coalesce(sum(case when u.status >= 400 and u.status < 500 then u.requests end), 0)::bigint as refused,
        coalesce(sum(case when u.status >= 500 then u.requests end), 0)::bigint as failed,
        sum(u.prompt_tokens)::bigint as prompt_tokens, sum(u.completion_tokens)::bigint as completion_tokens,
        sum(u.cached_tokens)::bigint as cached_tokens, sum(u.cost_micros)::bigint as cost_micros
      from u ${names} group by 1 order by 1`.execute(this.db);
    return r.rows.map((x) => ({
      ...x,
      requests: Number(x.requests),
      refused: Number(x.refused),
      failed: Number(x.failed),
      prompt_tokens: Number(x.prompt_tokens),
      completion_tokens: Number(x.completion_tokens),
      cached_tokens: Number(x.cached_tokens),
      cost_micros: Number(x.cost_micros),
    }));
  }

  async countByRequestIds(ids: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (!ids.length) return out;
    const rows = await this.db.selectFrom('usage').select(['request_id']).where('request_id', 'in', ids).execute();
    for (const r of rows) out.set(r.request_id, (out.get(r.request_id) ?? 0) + 1);
    return out;
  }
}

import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/**
 * The accounting database (docs/accounting.md): the tenancy tree, API key hashes,
 * limits, raw usage rows and hourly rollups, and the audit log. Portable SQL:
 * times are integer unix milliseconds, money is integer micro-units.
 * Only the accounting service reads or writes these tables.
 */
export interface Database {
  organizations: OrganizationsTable;
  teams: TeamsTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  limits: LimitsTable;
  usage: UsageTable;
  usage_rollup: UsageRollupTable;
  usage_rollup_day: UsageRollupDayTable;
  usage_rollup_model_hour: UsageRollupModelHourTable;
  audit_log: AuditLogTable;
  admin_requests: AdminRequestsTable;
}

export interface OrganizationsTable {
  id: string;
  /** Unique. */
  name: string;
  created_at: number;
}

export interface TeamsTable {
  id: string;
  org_id: string;
  /** Unique within its organization. */
  name: string;
  created_at: number;
}

export interface ProjectsTable {
  id: string;
  team_id: string;
  /** Unique within its team. */
  name: string;
  /** Default band for the project's keys; null = the router's default. */
  band: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  /** Hex SHA-256 of the key; the only copy. */
  key_hash: string;
  /** `sk-llmgw-4f2a`, for display, never for auth. */
  key_prefix: string;
  name: string;
  project_id: string;
  /** Priority band (docs/admission.md#queues); null inherits the project's. */
  band: string | null;
  /** Default routing profile (docs/scheduling.md). */
  routing_profile: string | null;
  created_at: number;
  /** null = never expires. */
  expires_at: number | null;
  /** Soft delete, so usage rows and the audit log keep their subject. */
  revoked_at: number | null;
  /** Written at most once a minute by the usage batch writer. */
  last_used_at: number | null;
}

export interface LimitsTable {
  scope_type: 'org' | 'team' | 'project' | 'key';
  scope_id: string;
  /** null = no limit at this level. */
  rpm: number | null;
  tpm: number | null;
  /** Per period, integer micro-units; null = no budget. */
  budget_micros: number | null;
  budget_period: 'day' | 'month' | null;
  /** JSON array; null = every model, [] = none. */
  allowed_models: string | null;
  updated_at: number;
}

export interface UsageTable {
  /** Idempotency: one id per record, minted by the router; a record delivered twice is inserted once. */
  record_id: string;
  /** The request's x-request-id (client-supplied ids may repeat, e.g. on client retries). */
  request_id: string;
  ts: number;
  key_id: string;
  project_id: string;
  model: string;
  served_model: string;
  /** The LoRA adapter that served the request, `''` for none (migration 0009). */
  adapter: ColumnType<string, string | undefined, string>;
  pool: string | null;
  status: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  ttft_ms: number | null;
  duration_ms: number;
  queue_ms: number | null;
  /** Billable cost in micro-units (docs/accounting.md#prices-and-budgets). */
  cost_micros: number;
  /** 0 until the rollup job has folded the row into usage_rollup. */
  rolled_up: ColumnType<number, number | undefined, number>;
}

export interface UsageRollupTable {
  hour_ts: number;
  key_id: string;
  project_id: string;
  model: string;
  /** `''` for requests without an adapter (migration 0009). */
  adapter: ColumnType<string, string | undefined, string>;
  /** HTTP status the requests ended with (2xx served, 4xx refused, 5xx failed). */
  status: ColumnType<number, number | undefined, number>;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost_micros: number;
}

/** The sums every usage rollup keeps per bucket. */
export interface UsageSums {
  status: number;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost_micros: number;
}

/** Usage per UTC day, key, served model, adapter (migration 0009) and status (migration 0008). */
export interface UsageRollupDayTable extends UsageSums {
  day_ts: number;
  key_id: string;
  project_id: string;
  model: string;
  adapter: ColumnType<string, string | undefined, string>;
}

/** Fleet-wide usage per hour, served model and status (migration 0008). */
export interface UsageRollupModelHourTable extends UsageSums {
  hour_ts: number;
  model: string;
}

export interface AuditLogTable {
  id: Generated<number>;
  ts: number;
  /** Who: the caller's identity as the admin API saw it. */
  actor: string;
  /** What: e.g. `org.create`, `key.revoke`, `limit.set`. */
  action: string;
  target_type: string;
  target_id: string;
  /** JSON with the change (never a key secret). */
  details: string;
}

/**
 * Admin writes already done, by the client's idempotency key
 * (docs/accounting.md, "Retries and request ids"): a repeated key gets the
 * first result instead of a second write. Written in the same transaction as
 * the change it records.
 */
export interface AdminRequestsTable {
  /** The client's idempotency key (`llmgw-idempotency-key` metadata). */
  request_key: string;
  /** The method it was used for, e.g. `CreateKey`. */
  method: string;
  /** JSON of the result; for CreateKey the secret only sealed with a key held in memory. */
  response: string;
  created_at: number;
}

export type AdminRequestRow = Selectable<AdminRequestsTable>;
export type Organization = Selectable<OrganizationsTable>;
export type Team = Selectable<TeamsTable>;
export type Project = Selectable<ProjectsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type LimitRow = Selectable<LimitsTable>;
export type UsageRow = Selectable<UsageTable>;
export type NewUsageRow = Insertable<UsageTable>;
export type RollupRow = Selectable<UsageRollupTable>;
export type AuditRow = Selectable<AuditLogTable>;

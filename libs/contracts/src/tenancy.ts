/**
 * Tenancy facts shared by the router and accounting (docs/accounting.md). These are the
 * in-process shapes; the wire shapes are in proto/llmgw/accounting/v1.
 */

/** Effective limits of a key: the most restrictive along key → project → team → org. */
export interface ResolvedLimits {
  /** Requests per minute per level that sets one; every level is checked. */
  rpm: Array<{ scope: string; limit: number }>;
  tpm: Array<{ scope: string; limit: number }>;
  budgets: Array<{ scope: string; limitMicros: number; period: 'day' | 'month' }>;
  /** Intersection of allowlists; undefined = every model, [] = none. */
  allowedModels?: string[];
}

/** Who is calling, once the key is resolved. */
export interface Principal {
  keyId: string;
  keyPrefix: string;
  projectId: string;
  teamId: string;
  orgId: string;
  /** Priority band; overrides x-llmgw-band once auth is on. */
  band: string;
  /** Default routing profile, if the key sets one. */
  routingProfile?: string;
  limits: ResolvedLimits;
  /** Unix ms; undefined = never expires. */
  expiresAt?: number;
}

/** One completed request, as appended to the usage ledger (docs/wire-contracts.md#redis-contracts). */
export interface UsageRecord {
  requestId: string;
  /** Unix ms when the request completed. */
  ts: number;
  keyId: string;
  projectId: string;
  model: string;
  servedModel: string;
  /** The LoRA adapter that served the request on `servedModel` (docs/models.md, "Adapters"); absent for a plain request. */
  adapter?: string;
  pool?: string;
  status: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  ttftMs?: number;
  durationMs: number;
  queueMs?: number;
}

import { z } from 'zod';

/**
 * The Redis contracts of tenancy and usage (docs/wire-contracts.md, "Redis
 * contracts"): one versioned schema per record that crosses a process
 * boundary through Redis, and the builders of every key name. Writers stamp
 * `v`; readers validate with these schemas and log and skip what does not
 * parse — a bad record never stops a reader.
 */

/** A minimal logger shape (pino fits). */
export interface ContractLog {
  warn(obj: object, msg: string): void;
}

/** Key names under `prefix` (e.g. `llmgw:`). Version 1 of the layout. */
export const redisKeys = {
  /** HASH: unix second → requests in that second (a sliding 60 s window). */
  rpm: (prefix: string, scope: string) => `${prefix}rl:{${scope}}:rpm`,
  /** HASH: unix second → tokens in that second. */
  tpm: (prefix: string, scope: string) => `${prefix}rl:{${scope}}:tpm`,
  /** STRING: micro-units spent in the budget period starting at `periodStart` (unix ms). */
  budget: (prefix: string, scope: string, periodStart: number) => `${prefix}budget:{${scope}}:${periodStart}`,
  /** HASH: budget holds of counter leases in that period, id → `micros:untilMs` (docs/accounting.md#counter-leases). */
  budgetHolds: (prefix: string, scope: string, periodStart: number) => `${prefix}budget:{${scope}}:${periodStart}:holds`,
  /** ZSET: closed budget holds, id scored by when they are forgotten. */
  budgetClosed: (prefix: string, scope: string, periodStart: number) => `${prefix}budget:{${scope}}:${periodStart}:closed`,
  /** STREAM of usage records (field `r`), consumer group `accounting`. */
  usageStream: (prefix: string) => `${prefix}usage`,
  /** Pub/sub channel of key-cache invalidations. */
  keyCacheChannel: (prefix: string) => `${prefix}keycache`,
  /** STRING: the published record of one API key (by its SHA-256 hash), JSON. */
  publishedKey: (prefix: string, keyHash: string) => `${prefix}apikey:${keyHash}`,
};

/** Version written by this code; readers accept it and records without `v` (written before it existed). */
export const USAGE_RECORD_VERSION = 1;
export const KEY_CACHE_INVALIDATION_VERSION = 1;
export const PUBLISHED_KEY_VERSION = 1;

const count = z.number().nonnegative();
const version = (v: number) => z.literal(v).optional();

/** Usage record v1: the router appends one per completed request (field `r` of the stream entry); accounting reads them. */
export const usageRecordSchema = z.object({
  v: version(USAGE_RECORD_VERSION),
  recordId: z.string().optional(),
  requestId: z.string(),
  ts: z.number(),
  keyId: z.string(),
  projectId: z.string(),
  model: z.string(),
  servedModel: z.string(),
  adapter: z.string().optional(),
  pool: z.string().optional(),
  status: z.number().int(),
  promptTokens: count,
  completionTokens: count,
  cachedTokens: count,
  ttftMs: z.number().optional(),
  durationMs: z.number(),
  queueMs: z.number().optional(),
  costMicros: count,
});

/** Key-cache invalidation v1: accounting publishes one per tenancy change; routers drop what it names. */
export const keyCacheInvalidationSchema = z.object({
  v: version(KEY_CACHE_INVALIDATION_VERSION),
  scopeType: z.enum(['org', 'team', 'project', 'key', 'all']),
  scopeId: z.string(),
});

const scopeLimit = z.object({ scope: z.string().min(1), limit: z.number().int().nonnegative() });

/**
 * Published key v1: accounting writes one per API key (on create, update,
 * revoke and a scope's limit change, and for every key at start); routers read
 * it only while accounting cannot answer ResolveKey. Never holds the secret:
 * `keyHash` is the SHA-256 of the bearer key, which is what routers look up.
 * `rev` is the unix ms at which accounting read the state written (a record
 * is replaced only by one read at the same time or later); a `revoked` record
 * is a tombstone that nothing replaces.
 */
export const publishedKeySchema = z.discriminatedUnion('state', [
  z.object({
    v: z.literal(PUBLISHED_KEY_VERSION),
    state: z.literal('active'),
    keyHash: z.string().regex(/^[0-9a-f]{64}$/),
    rev: z.number().int().nonnegative(),
    keyId: z.string().min(1),
    keyPrefix: z.string(),
    projectId: z.string().min(1),
    teamId: z.string().min(1),
    orgId: z.string().min(1),
    /** '' = neither the key nor its project names a band (the router's `default_band` applies). */
    band: z.string(),
    routingProfile: z.string().optional(),
    /** Unix ms; absent = never expires. */
    expiresAt: z.number().int().optional(),
    /** Resolved along key → project → team → org, as ResolveKey answers them. */
    limits: z.object({
      rpm: z.array(scopeLimit),
      tpm: z.array(scopeLimit),
      budgets: z.array(z.object({ scope: z.string().min(1), limitMicros: z.number().int().nonnegative(), period: z.enum(['day', 'month']) })),
      /** Absent = every model. */
      allowedModels: z.array(z.string()).optional(),
    }),
  }),
  z.object({
    v: z.literal(PUBLISHED_KEY_VERSION),
    state: z.literal('revoked'),
    keyHash: z.string().regex(/^[0-9a-f]{64}$/),
    rev: z.number().int().nonnegative(),
    keyId: z.string().min(1),
  }),
]);

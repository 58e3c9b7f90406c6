import type { ServerResponse } from 'node:http';
import type { RouterConfig } from '@llmgw/config';
import type { Principal, UsageRecord } from '@llmgw/contracts';
import type { DependencyStatus, Logger } from '@llmgw/observability';
import type { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

/** What tenancy reads of the router configuration: its section, and the band of keys that name none. */
export type TenancyConfig = Pick<RouterConfig, 'tenancy' | 'default_band'>;

/** A quota reservation taken before the request runs; settled exactly once. */
export interface Reservation {
  readonly id: string;
  /** The model to serve; differs from the requested one on a budget fallback. */
  readonly model: string;
  /** OpenAI's x-ratelimit-* headers for the key's tightest RPM/TPM windows (absent without such limits). */
  readonly rateLimitHeaders?: Readonly<Record<string, string>>;
}

/**
 * The router's tenancy seam (docs/router.md, "Seams for other services"): auth, limits, budgets and the usage
 * ledger. Called on every request; with tenancy disabled every call is a
 * no-op and `authenticate` returns undefined.
 */
export interface TenancyHooks {
  readonly enabled: boolean;
  /** Bearer key → Principal; throws LlmgwError AUTH_MISSING/AUTH_INVALID when enabled. */
  authenticate(authorization: string | undefined): Promise<Principal | undefined>;
  /** Checks allowlist, RPM/TPM and budget along the chain and reserves; throws LlmgwError (429 + Retry-After, 403). May return a budget-fallback model. */
  reserve(p: Principal | undefined, model: string, estimatedTokens: number): Promise<Reservation>;
  /**
   * Moves the reservation to another model the request is about to be served by (an
   * availability fallback, docs/router.md, "The serving plan"): refuses (throws LlmgwError 403/429) when the key may not
   * use it or cannot pay for it, and otherwise returns the reservation to settle, charging
   * the budgets at that model's price. Absent: fallbacks are not re-checked.
   */
  rebind?(r: Reservation, model: string): Promise<Reservation>;
  /** Settles the reservation against real usage (always called once per reserve). */
  settle(r: Reservation, usage: { promptTokens: number; completionTokens: number; model: string } | undefined): void;
  /** Appends the usage record to the ledger (never blocks the response). */
  recordUsage(rec: UsageRecord): void;
  /** `settle(r, usage)` then `recordUsage(rec)`, in one store round trip where the stores allow it. */
  settleAndRecord?(r: Reservation, usage: { promptTokens: number; completionTokens: number; model: string } | undefined, rec: UsageRecord): void;
  /**
   * The durable-usage hold (`tenancy.durable_usage`, durable-end.ts): called once for each client
   * API request before its stages run, with its request id; the response's final bytes then wait
   * until `recordUsage`/`settleAndRecord` has that id's record in the ledger. Absent: no hold.
   */
  holdEnd?(requestId: string, res: ServerResponse): void;
  /** Optional extra routes on the client port (e.g. `GET /me`). */
  registerRoutes?(app: FastifyInstance): void;
  close(): Promise<void>;
}

export interface TenancyDeps {
  log: Logger;
  registry: Registry;
  /** The `commands` client for `tenancy.redis_url` (the service host's `ctx.redis`). */
  redis?: Redis;
  /** Opens the other connections the stores need (the key-cache subscriber). */
  openRedis?: (purpose: string, kind: 'subscriber' | 'blocking') => Promise<Redis>;
  /** The service host's `ctx.dependency` (accounting's outages). */
  dependency?: (name: string, fields?: Record<string, unknown>) => DependencyStatus;
}

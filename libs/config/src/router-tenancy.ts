import { z } from 'zod';
import { duration } from './load';
import { clientTlsSchema } from './tls';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

/** Budget units per million tokens for one model (docs/accounting.md#prices-and-budgets); both zero = free (exempt from budgets). */
export const modelPriceSchema = z
  .object({
    prompt_per_mtok: z.number().min(0).default(0),
    completion_per_mtok: z.number().min(0).default(0),
  })
  .strict();

/**
 * The router's tenancy block (docs/accounting.md): auth, limits, budgets, prices and
 * the usage ledger. Off by default (no auth, no limits).
 */
export const routerTenancySchema = z
  .object({
    enabled: z.boolean().default(false),
    /** Accounting's KeyResolver gRPC address "host:port" (read-through on a key-cache miss). */
    accounting_address: z.string().optional(),
    /** TLS to accounting (PEM paths; cert + key = mTLS, role router); plaintext when absent. */
    accounting_tls: clientTlsSchema.optional(),
    /** Redis shared by every router for counters, the usage stream and invalidation; absent = in-process (one router). */
    redis_url: z.string().optional(),
    key_prefix: z.string().default(DEFAULT_REDIS_KEY_PREFIX),
    /** Name of the process-wide in-process store set (embedded mode: the same name as accounting's). */
    embedded_stores: z.string().default('default'),
    /** Safety-net lifetime of a cached key (pub/sub invalidation is the normal path). */
    cache_ttl: duration().default(300_000),
    /** How long an unknown key's refusal is cached. */
    negative_cache_ttl: duration().default(5_000),
    /** Deadline of a ResolveKey call on a cache miss. */
    resolve_timeout: duration().default(2_000),
    /** Model → price; models absent here use default_price. */
    prices: z.record(z.string(), modelPriceSchema).default({}),
    default_price: modelPriceSchema.optional(),
    /** A zero-priced model served instead when a budget is spent (docs/router.md, "Upstream attempts, retries, timeouts"); absent = answer 429. */
    budget_fallback_model: z.string().optional(),
    /** Whether an authenticated key may pin a replica with x-llmgw-replica. */
    allow_replica_pin: z.boolean().default(true),
    /** Usage records kept in memory while the ledger (Redis) is unreachable. */
    ledger_buffer: z.number().int().positive().default(100_000),
    /** Approximate bound on the usage stream (XADD MAXLEN ~). */
    stream_max_len: z.number().int().positive().default(1_000_000),
    /** Hold each response's last bytes until its usage record is in the ledger (no record lost to a kill). */
    durable_usage: z.boolean().default(true),
    /** Counter leases on the shared (Redis) counters (docs/accounting.md#counter-leases). */
    leases: z
      .object({
        enabled: z.boolean().default(true),
        /** Lifetime of one lease. */
        ttl: duration().default(5_000),
        /** The most of a key chain's remaining headroom one lease may take. */
        fraction: z.number().gt(0).max(1).default(0.1),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type RouterTenancyConfig = z.output<typeof routerTenancySchema>;

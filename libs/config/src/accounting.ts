import { z } from 'zod';
import { insecureFlag, serverTlsSchema } from './tls';
import { duration, listenAddress, logLevel } from './load';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

/**
 * The accounting service's configuration (`llmgw accounting`, docs/accounting.md).
 * Parsed once at boot, strict, frozen.
 */

export const accountingConfigSchema = z
  .object({
    /** gRPC listener (KeyResolver + TenancyAdmin), "host:port"; port 0 = any free port. */
    listen: listenAddress().default('127.0.0.1:7072'),
    /** Metrics, /healthz, /readyz. */
    admin_listen: listenAddress().default('127.0.0.1:9094'),
    log_level: logLevel(),
    /** `postgres://…`, `pglite:memory` or `pglite:<dir>` (embedded). */
    database_url: z.string().min(1).default('pglite:memory'),
    /** Longest wait for a new PostgreSQL connection; a call that cannot get one answers UNAVAILABLE "database unavailable". */
    database_connect_timeout: duration().default(5000),
    /** Longest a statement may run (server-side statement_timeout; a connection silent 1 s past it is closed). */
    database_statement_timeout: duration().default(10_000),
    /** /readyz's own wait for the database ping: past it, 503 "database unreachable". */
    database_ping_timeout: duration().default(500),
    /** How long an admin write's idempotency key is remembered (a retry with it returns the first result). */
    idempotency_window: duration().default(86_400_000),
    /** Redis for counters, the usage stream and key-cache invalidation; absent = in-process stores. */
    redis_url: z.string().optional(),
    /** Prefix of every Redis key, shared with the routers. */
    key_prefix: z.string().default(DEFAULT_REDIS_KEY_PREFIX),
    /** TLS material (PEM file paths); mTLS with role checks when client_ca is set (docs/security.md). */
    tls: serverTlsSchema.optional(),
    /** Plaintext on a non-loopback listen address is refused unless this is true. */
    insecure: insecureFlag(),
    ingest: z
      .object({
        /** Consumer name in the usage stream's group; stable across restarts so a restart resumes its own pending records. */
        consumer: z.string().min(1).optional(),
        /** Flush a batch at least this often… */
        batch_interval: duration().default(200),
        /** …or when it holds this many records. */
        batch_size: z.number().int().positive().max(5000).default(500),
        /** Records another consumer took and has not acknowledged for this long are claimed (it died). */
        claim_idle: duration().default(30_000),
        /** Approximate bound on the usage stream (XADD MAXLEN ~). */
        stream_max_len: z.number().int().positive().default(1_000_000),
      })
      .strict()
      .default({ batch_interval: 200, batch_size: 500, claim_idle: 30_000, stream_max_len: 1_000_000 }),
    /** How often raw usage rows are folded into hourly rollups. */
    rollup_interval: duration().default(60_000),
    /** Raw usage rows older than this (and already rolled up) are deleted. */
    raw_retention: duration().default(30 * 86_400_000),
    /** api_keys.last_used_at is written at most this often per key. */
    last_used_interval: duration().default(60_000),
    /** People and portal sessions (docs/portal.md). */
    accounts: z
      .object({
        /** open: anyone signs up and waits for approval; invite: only through an operator's link; closed: neither. */
        signup: z.enum(['open', 'invite', 'closed']).default('open'),
        /** A session unused this long ends. */
        session_idle: duration().default(30 * 60_000),
        /** A session ends this long after sign-in, used or not. */
        session_absolute: duration().default(12 * 3_600_000),
        /** Failed sign-ins allowed per account within signin_window… */
        signin_attempts_per_account: z.number().int().positive().default(5),
        /** …and per address. */
        signin_attempts_per_address: z.number().int().positive().default(20),
        /** The window failed sign-ins are counted in. */
        signin_window: duration().default(15 * 60_000),
      })
      .strict()
      .default({
        signup: 'open',
        session_idle: 30 * 60_000,
        session_absolute: 12 * 3_600_000,
        signin_attempts_per_account: 5,
        signin_attempts_per_address: 20,
        signin_window: 15 * 60_000,
      }),
    /** Budget counters are raised to the database's figures at start and this often after. */
    reseed_interval: duration().default(60_000),
  })
  .strict();

export type AccountingConfig = z.output<typeof accountingConfigSchema>;
export type AccountingConfigInput = z.input<typeof accountingConfigSchema>;

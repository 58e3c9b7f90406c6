import { accountingProto, ACCOUNTS_SERVICE, AUDIT_LOG_SERVICE, KEY_RESOLVER_SERVICE, TENANCY_ADMIN_SERVICE } from '@llmgw/accounting-rpc';
import { accountingConfigSchema, type AccountingConfig, type AccountingConfigInput } from '@llmgw/config';
import { createDb, dbError, pingDb, type Db } from '@llmgw/db';
import { isLlmgwError } from '@llmgw/errors';
import type { AuthorizationTable } from '@llmgw/grpc';
import { LATENCY_BUCKETS, type Logger } from '@llmgw/observability';
import { defineService, startService } from '@llmgw/service';
import { type AccountingStores, inProcessAccountingStores, redisAccountingStores } from '@llmgw/stores';
import { hostname } from 'node:os';
import { Counter, Gauge, Histogram } from 'prom-client';
import { RedisAttemptLimiter } from './accounts/rate-limit';
import { AccountStore } from './accounts/store';
import { accountsHandlers } from './accounts/service';
import { UsageIngester } from './ingest';
import { KeyPublisher } from './key-publisher';
import { auditLogHandlers, keyResolverHandlers, tenancyAdminHandlers } from './service';
import { capacityAdminHandlers } from './capacity-service';
import { CapacityStore } from './capacity-store';
import { TenancyStore } from './tenancy-store';
import { UsageStore } from './usage-store';

/**
 * Who may call accounting (docs/security.md): routers resolve keys, operators
 * (ctl) and the portal administer tenancy, the placement-scheduler appends
 * the fleet actions it relays to the audit log; health is open to any certificate.
 */
export const ACCOUNTING_AUTHORIZATION: AuthorizationTable = {
  [KEY_RESOLVER_SERVICE]: ['router'],
  [TENANCY_ADMIN_SERVICE]: ['operator', 'portal'],
  // Operator actions done elsewhere (cordon, drain, model targets), appended by the relay that did them.
  [AUDIT_LOG_SERVICE]: ['placement-scheduler', 'portal'],
  // People and sessions: the portal for the browser, operators for `llmgw ctl user`.
  [ACCOUNTS_SERVICE]: ['operator', 'portal'],
  // Capacity profiles (docs/capacity.md): operators save and delete; the placement-scheduler lists them (staleness, sizing).
  'llmgw.accounting.v1.CapacityAdmin': ['operator', 'portal'],
  'llmgw.accounting.v1.CapacityAdmin/ListCapacityProfiles': ['operator', 'portal', 'placement-scheduler'],
};

/** Longest a shutdown waits for running calls before cutting them (ms). */
const DRAIN_DEADLINE_MS = 3000;

export interface StartOptions {
  /** Parsed config, or raw input to parse (defaults filled in). */
  config: AccountingConfig | AccountingConfigInput;
  log?: Logger;
  /** Use these stores instead of what config describes (tests, `llmgw up`). */
  stores?: AccountingStores;
  /** Use this database instead of opening `database_url` (the caller closes it). */
  db?: Db;
  /** The clock key expiry and audit timestamps are read from (tests); default Date.now. */
  now?: () => number;
}

export interface RunningAccounting {
  /** gRPC address "host:port" (KeyResolver + TenancyAdmin). */
  url: string;
  /** Admin base URL: /metrics, /healthz, /readyz. */
  adminUrl: string;
  db: Db;
  stores: AccountingStores;
  tenancy: TenancyStore;
  usage: UsageStore;
  accounts: AccountStore;
  ingester: UsageIngester;
  /** Runs rollup + retention now (tests; normally on a timer). */
  rollupNow(): Promise<void>;
  close(): Promise<void>;
}

/** What a started accounting hands back through the host (`RunningService.service`). */
export type AccountingHandle = Omit<RunningAccounting, 'adminUrl' | 'close'>;

/**
 * Accounting on the service host: migrates the database, raises budget
 * counters to the database's figures, starts the usage batch writer, the
 * rollup/retention and reseed timers and the gRPC services; the host serves
 * /metrics, /healthz and /readyz (database reachable, ingest not retrying).
 */
export function accountingService(opts: Omit<StartOptions, 'config' | 'log'> = {}) {
  return defineService({
    name: 'accounting',
    schema: accountingConfigSchema,
    settings: (c) => ({ ...c, drain_deadline: DRAIN_DEADLINE_MS }),
    async start(ctx): Promise<AccountingHandle> {
      const cfg: AccountingConfig = ctx.config;
      const log = ctx.log;
      const registry = ctx.registry;
      const dbErrors = new Counter({
        name: 'llmgw_db_connection_errors_total',
        help: 'Errors PostgreSQL connections reported (lost, reset, terminated); each is logged, the connection closed and replaced.',
        registers: [registry],
      });
      const db =
        opts.db ??
        (await createDb(cfg.database_url, {
          connectTimeoutMs: cfg.database_connect_timeout,
          statementTimeoutMs: cfg.database_statement_timeout,
          onConnectionError: (err) => {
            dbErrors.inc();
            log.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'database connection failed; it is closed and replaced');
          },
        }));
      if (!opts.db) ctx.onClose('database', () => db.close());

      let stores = opts.stores;
      if (!stores) {
        if (cfg.redis_url) {
          // The ledger's writes wait through a reconnect rather than fail (kind `queued`).
          const url = cfg.redis_url;
          const redis = await ctx.redis('ledger', url, { kind: 'queued' });
          stores = redisAccountingStores(redis, cfg.key_prefix, {
            ledgerMaxLen: cfg.ingest.stream_max_len,
            log,
            open: (purpose, kind) => ctx.redis(purpose, url, { kind }),
          });
        } else {
          stores = inProcessAccountingStores();
        }
      }
      const s = stores;

      // Every key's record for routers to verify keys by while accounting cannot answer (docs/accounting.md).
      const publisher = s.publishedKeys && new KeyPublisher(db.db, s.publishedKeys, { log, registry });
      const tenancy = new TenancyStore(db.db, publisher ? publisher.wrap(s.keyCacheBus) : s.keyCacheBus, opts.now);
      publisher?.attach(tenancy);
      const usage = new UsageStore(db.db);
      const a = cfg.accounts;
      const attemptLimits = { perAccount: a.signin_attempts_per_account, perAddress: a.signin_attempts_per_address, windowMs: a.signin_window };
      // Sign-in attempt counts are shared through Redis when it is configured, so every instance sees them.
      const attempts = cfg.redis_url
        ? new RedisAttemptLimiter(await ctx.redis('signin-attempts', cfg.redis_url), `${cfg.key_prefix}signin:`, attemptLimits, opts.now)
        : undefined;
      const accounts = new AccountStore(
        db.db,
        tenancy,
        {
          signup: a.signup,
          sessionIdleMs: a.session_idle,
          sessionAbsoluteMs: a.session_absolute,
          attempts: attemptLimits,
        },
        opts.now,
        attempts,
      );

      const metrics = {
        batchSize: new Histogram({
          name: 'llmgw_usage_batch_size',
          help: 'Records per usage batch written to the database.',
          buckets: [1, 5, 10, 50, 100, 250, 500, 1000, 2500, 5000],
          registers: [registry],
        }),
        insertSeconds: new Histogram({
          name: 'llmgw_usage_insert_seconds',
          help: 'Time to write one usage batch (one transaction).',
          buckets: LATENCY_BUCKETS,
          registers: [registry],
        }),
        records: new Counter({
          name: 'llmgw_usage_records_total',
          help: 'Usage records read from the ledger, by result.',
          labelNames: ['result'],
          registers: [registry],
        }),
        errors: new Counter({ name: 'llmgw_usage_ingest_errors_total', help: 'Failed ledger reads or database writes (retried).', registers: [registry] }),
      };
      new Gauge({
        name: 'llmgw_usage_stream_depth',
        help: 'Usage records waiting in the ledger (state=length: not yet written; state=pending: delivered, not acknowledged).',
        labelNames: ['state'],
        registers: [registry],
        async collect() {
          const d = await s.ledger.depth().catch(() => undefined);
          if (d) {
            this.set({ state: 'length' }, d.length);
            this.set({ state: 'pending' }, d.pending);
          }
        },
      });
      const rollupRows = new Counter({ name: 'llmgw_usage_rolled_up_total', help: 'Raw usage rows folded into hourly rollups.', registers: [registry] });
      const retained = new Counter({
        name: 'llmgw_usage_retention_deleted_total',
        help: 'Raw usage rows deleted after the retention window.',
        registers: [registry],
      });

      // Budgets first: a restart must not reset what was spent.
      const seeded = await usage.reseedBudgets(s.counters, Date.now());
      log.info({ budgets: seeded }, 'budget counters seeded from the database');

      const ingester = new UsageIngester(
        s.ledger,
        usage,
        {
          consumer: cfg.ingest.consumer ?? `accounting-${hostname()}`,
          batchIntervalMs: cfg.ingest.batch_interval,
          batchSize: cfg.ingest.batch_size,
          claimIdleMs: cfg.ingest.claim_idle,
          lastUsedIntervalMs: cfg.last_used_interval,
        },
        log,
        metrics,
      );
      await ingester.start();
      if (publisher) {
        publisher.startBackfill();
        ctx.onClose('key publisher', () => publisher.close());
      }
      ctx.onClose('usage ingester', () => ingester.stop());

      const rollupNow = async () => {
        const n = await usage.rollup();
        rollupRows.inc(n);
        const d = await usage.applyRetention(Date.now(), cfg.raw_retention);
        retained.inc(d);
        await tenancy.pruneRequests(cfg.idempotency_window);
        if (n || d) log.debug({ rolledUp: n, deleted: d }, 'usage rollup');
      };
      const timers = [
        setInterval(() => void rollupNow().catch((e) => log.warn({ err: e }, 'usage rollup failed')), cfg.rollup_interval),
        setInterval(() => void usage.reseedBudgets(s.counters, Date.now()).catch((e) => log.warn({ err: e }, 'budget reseed failed')), cfg.reseed_interval),
      ];
      for (const t of timers) t.unref();
      ctx.onClose('rollup timers', () => timers.forEach(clearInterval));

      // A call waits on the database at most this long (its own deadline aside): a connection, then a statement.
      const dbCallTimeoutMs = cfg.database_connect_timeout + cfg.database_statement_timeout + 1000;
      const deps = { tenancy, usage, counters: s.counters, log, dbCallTimeoutMs };
      const pkg = accountingProto();
      const { address: url } = await ctx.grpcServer('grpc', {
        address: cfg.listen,
        tls: cfg.tls,
        insecure: cfg.insecure,
        authorize: ACCOUNTING_AUTHORIZATION,
        services: [
          { definition: pkg.KeyResolver.service, implementation: keyResolverHandlers(deps) as never },
          { definition: pkg.TenancyAdmin.service, implementation: tenancyAdminHandlers(deps) as never },
          { definition: pkg.AuditLog.service, implementation: auditLogHandlers(deps) as never },
          { definition: pkg.Accounts.service, implementation: accountsHandlers({ accounts, log, dbCallTimeoutMs }) as never },
          { definition: pkg.CapacityAdmin.service, implementation: capacityAdminHandlers({ ...deps, capacity: new CapacityStore(db.db) }) as never },
        ],
      });
      ctx.readiness(async () => {
        try {
          await pingDb(db.db, cfg.database_ping_timeout);
        } catch (e) {
          // Why, as admin calls say it ("database unavailable (no answer within 500 ms)"): no SQL, no host name.
          const err = dbError(e);
          const reason = isLlmgwError(err) ? err.message : 'database unavailable';
          return { ready: false, status: 'unavailable', database: 'unreachable', reason };
        }
        const ok = ingester.ok;
        return { ready: ok, status: ok ? 'ready' : 'degraded', database: 'ok', ingest: ok ? 'ok' : 'retrying' };
      });
      ctx.describe({ database: db.displayUrl, redis: Boolean(cfg.redis_url) });
      return { url, db, stores: s, tenancy, usage, accounts, ingester, rollupNow };
    },
  });
}

/** Starts accounting through the service host (tests, `llmgw up`). */
export async function start(opts: StartOptions): Promise<RunningAccounting> {
  const { config, log, ...deps } = opts;
  const running = await startService(accountingService(deps), { config, log, configSource: 'accounting options' });
  return { ...running.service, adminUrl: running.adminUrl!, close: () => running.close() };
}

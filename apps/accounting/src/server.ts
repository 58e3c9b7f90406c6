import { addAccountingServices, KEY_RESOLVER_SERVICE, TENANCY_ADMIN_SERVICE } from '@llmgw/accounting-rpc';
import { parseListen, reachableHost } from '@llmgw/cli';
import { accountingConfigSchema, parseConfig, type AccountingConfig, type AccountingConfigInput } from '@llmgw/config';
import { createDb, pingDb, type Db } from '@llmgw/db';
import { HealthService, createServer, listen, shutdown } from '@llmgw/grpc';
import { createLogger, createRegistry, LATENCY_BUCKETS, type Logger, logListening } from '@llmgw/observability';
import { type AccountingStores, inProcessAccountingStores, redisAccountingStores } from '@llmgw/stores';
import Redis from 'ioredis';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { Counter, Gauge, Histogram } from 'prom-client';
import { UsageIngester } from './ingest';
import { keyResolverHandlers, tenancyAdminHandlers } from './service';
import { TenancyStore } from './tenancy-store';
import { UsageStore } from './usage-store';

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
  ingester: UsageIngester;
  /** Runs rollup + retention now (tests; normally on a timer). */
  rollupNow(): Promise<void>;
  close(): Promise<void>;
}


/**
 * Starts accounting: migrates the database, raises budget counters to the
 * database's figures, starts the usage batch writer, the rollup/retention and
 * reseed timers, the gRPC services and the admin listener.
 */
export async function start(opts: StartOptions): Promise<RunningAccounting> {
  const cfg: AccountingConfig = Object.isFrozen(opts.config) ? (opts.config as AccountingConfig) : parseConfig(accountingConfigSchema, opts.config, 'accounting options');
  const log = opts.log ?? createLogger({ service: 'accounting', level: cfg.log_level });
  const registry = createRegistry('accounting');
  const closers: Array<() => Promise<unknown> | unknown> = [];
  const closeAll = async () => {
    while (closers.length) await Promise.resolve(closers.pop()!()).catch((e) => log.warn({ err: e }, 'close step failed'));
  };

  try {
    const db = opts.db ?? (await createDb(cfg.database_url));
    if (!opts.db) closers.push(() => db.close());

    let stores = opts.stores;
    let redis: Redis | undefined;
    if (!stores) {
      if (cfg.redis_url) {
        redis = new Redis(cfg.redis_url, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
        redis.on('error', (e) => log.warn({ err: e.message }, 'redis error'));
        const r = redis;
        closers.push(() => r.quit().catch(() => r.disconnect()));
        stores = redisAccountingStores(redis, cfg.key_prefix, { ledgerMaxLen: cfg.ingest.stream_max_len, log });
      } else {
        stores = inProcessAccountingStores();
      }
    }
    const s = stores;

    const tenancy = new TenancyStore(db.db, s.keyCacheBus, opts.now);
    const usage = new UsageStore(db.db);

    const metrics = {
      batchSize: new Histogram({ name: 'llmgw_usage_batch_size', help: 'Records per usage batch written to the database.', buckets: [1, 5, 10, 50, 100, 250, 500, 1000, 2500, 5000], registers: [registry] }),
      insertSeconds: new Histogram({ name: 'llmgw_usage_insert_seconds', help: 'Time to write one usage batch (one transaction).', buckets: LATENCY_BUCKETS, registers: [registry] }),
      records: new Counter({ name: 'llmgw_usage_records_total', help: 'Usage records read from the ledger, by result.', labelNames: ['result'], registers: [registry] }),
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
    const retained = new Counter({ name: 'llmgw_usage_retention_deleted_total', help: 'Raw usage rows deleted after the retention window.', registers: [registry] });

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
    closers.push(() => ingester.stop());

    const rollupNow = async () => {
      const n = await usage.rollup();
      rollupRows.inc(n);
      const d = await usage.applyRetention(Date.now(), cfg.raw_retention);
      retained.inc(d);
      if (n || d) log.debug({ rolledUp: n, deleted: d }, 'usage rollup');
    };
    const timers = [
      setInterval(() => void rollupNow().catch((e) => log.warn({ err: e }, 'usage rollup failed')), cfg.rollup_interval),
      setInterval(() => void usage.reseedBudgets(s.counters, Date.now()).catch((e) => log.warn({ err: e }, 'budget reseed failed')), cfg.reseed_interval),
    ];
    for (const t of timers) t.unref();
    closers.push(() => timers.forEach(clearInterval));

    const server = createServer();
    const deps = { tenancy, usage, counters: s.counters, log };
    addAccountingServices(server, { keyResolver: keyResolverHandlers(deps), tenancyAdmin: tenancyAdminHandlers(deps) });
    const health = new HealthService('SERVING');
    health.set(KEY_RESOLVER_SERVICE, 'SERVING');
    health.set(TENANCY_ADMIN_SERVICE, 'SERVING');
    health.addTo(server);
    const gl = parseListen(cfg.listen);
    const tls = cfg.tls
      ? { cert: readFileSync(cfg.tls.cert), key: readFileSync(cfg.tls.key), ...(cfg.tls.client_ca ? { ca: readFileSync(cfg.tls.client_ca), requireClientCert: true } : {}) }
      : undefined;
    const port = await listen(server, gl.host, gl.port, { tls });
    closers.push(() => {
      health.shutdown();
      return shutdown(server, 3000);
    });

    const admin: HttpServer = createHttpServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/metrics') {
        registry.metrics().then(
          (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
          (e) => res.writeHead(500).end(String(e)),
        );
      } else if (path === '/healthz') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      } else if (path === '/readyz') {
        pingDb(db.db).then(
          () => {
            const ok = ingester.ok;
            res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ready' : 'degraded', database: 'ok', ingest: ok ? 'ok' : 'retrying' }));
          },
          () => res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"unavailable","database":"unreachable"}'),
        );
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      }
    });
    const al = parseListen(cfg.admin_listen);
    await new Promise<void>((resolve, reject) => {
      admin.once('error', reject);
      admin.listen(al.port, al.host, () => resolve());
    });
    closers.push(() => new Promise<void>((r) => admin.close(() => r())));

    const url = `${reachableHost(gl.host)}:${port}`;
    const adminUrl = `http://${reachableHost(al.host)}:${(admin.address() as AddressInfo).port}`;
    // spawnRole's convention: `url` is a URL; the gRPC address is its host:port.
    logListening(log, { url: `http://${url}`, urls: { grpc: `http://${url}`, admin: adminUrl }, database: db.displayUrl, redis: Boolean(cfg.redis_url) });

    let closed = false;
    return {
      url, adminUrl, db, stores: s, tenancy, usage, ingester, rollupNow,
      async close() {
        if (closed) return;
        closed = true;
        await closeAll();
      },
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

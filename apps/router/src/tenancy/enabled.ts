import type { Principal, UsageRecord } from '@llmgw/contracts';
import { inProcessAccountingStores, LeasedLimitCounters, redisAccountingStores, type AccountingStores, type LedgerRecord } from '@llmgw/stores';
import { costMicros } from '@llmgw/tenancy';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { registerMeRoute } from './client-routes';
import { DurableEnds } from './durable-end';
import { ApiKeys } from './keys';
import { LedgerBuffer } from './ledger-buffer';
import { createTenancyMetrics } from './metrics';
import { Quota, type HeldReservation } from './quota';
import type { TenancyConfig, TenancyDeps, TenancyHooks } from './types';

/** Seams for tests: stores and resolver instead of what config describes, and a clock. */
export interface TenancyOverrides {
  stores?: AccountingStores;
  resolve?: (keyHash: string) => Promise<Principal>;
  now?: () => number;
}

/** The stores config describes: Redis at `tenancy.redis_url` (the host's client), else the process-wide in-process ones. */
function openStores(t: TenancyConfig['tenancy'], deps: TenancyDeps): AccountingStores {
  if (!t.redis_url) return inProcessAccountingStores(t.embedded_stores);
  if (!deps.redis) throw new Error('tenancy.redis_url is set but the router was given no Redis client for it (the service host opens it)');
  return redisAccountingStores(deps.redis, t.key_prefix, { ledgerMaxLen: t.stream_max_len, log: deps.log, open: deps.openRedis });
}

/**
 * Tenancy on (docs/accounting.md): API keys (keys.ts), the key's limits and
 * budgets reserved and settled on the shared counters (quota.ts), from a
 * counter lease where the key's headroom allows (docs/accounting.md#counter-leases),
 * usage records appended to the ledger with an in-memory buffer while it is
 * unreachable (ledger-buffer.ts), the durable-usage hold and `GET /me`
 * (client-routes.ts). Without Redis, the process-wide in-process stores are used.
 */
export function createEnabledTenancy(
  cfg: TenancyConfig,
  deps: TenancyDeps,
  over: TenancyOverrides = {},
): TenancyHooks & { allowReplicaPin(p: Principal): boolean; ready: Promise<void> } {
  const t = cfg.tenancy;
  const log = deps.log;
  const now = over.now ?? Date.now;
  const redis: Redis | undefined = over.stores ? undefined : deps.redis;
  const s = over.stores ?? openStores(t, deps);
  // While Redis is away the host has logged it once (dependency lost); each failed call is detail.
  const logFailure = (obj: object, msg: string) => (redis && redis.status !== 'ready' ? log.debug(obj, msg) : log.warn(obj, msg));
  // The buffered-records gauge reads the buffer when scraped (it is built just below).
  const metrics = createTenancyMetrics(deps.registry, () => buffer.size);
  const ends = new DurableEnds(
    5_000,
    () => metrics.holdTimeouts.inc(),
    (ms) => metrics.holdWait.observe(ms / 1000),
  );
  const buffer = new LedgerBuffer({ ledger: s.ledger, capacity: t.ledger_buffer, ends, onDropped: () => metrics.dropped.inc(), logFailure });
  const keys = new ApiKeys({ cfg, stores: s, resolve: over.resolve, dependency: deps.dependency, now, metrics, log, logFailure });
  // Counter leases on the shared counters (docs/accounting.md#counter-leases): off with tenancy.leases.enabled: false.
  const leases =
    t.redis_url && t.leases.enabled
      ? new LeasedLimitCounters(s.counters, { ttlMs: Math.min(t.leases.ttl, 60_000), fraction: t.leases.fraction, now })
      : undefined;
  const counters = leases ?? s.counters;
  const sweep = leases && setInterval(() => leases.sweep(), Math.max(250, Math.min(t.leases.ttl, 60_000) / 2));
  sweep?.unref();
  if (leases) metrics.watchLeases(leases.stats);
  const quota = new Quota({ cfg: t, counters, now, metrics, log, logFailure });

  const ledgerRecord = (rec: UsageRecord): LedgerRecord => ({
    ...rec,
    recordId: randomUUID(),
    costMicros: costMicros(quota.priceOf(rec.servedModel), rec.promptTokens, rec.completionTokens),
  });
  const settle: TenancyHooks['settle'] = (res, usage) => quota.settle(res as HeldReservation, usage);
  const recordUsage = (rec: UsageRecord): void => {
    if (rec.keyId === 'anonymous') ends.release(rec.requestId);
    else buffer.append(ledgerRecord(rec));
  };

  return {
    enabled: true,
    ready: keys.ready,
    authenticate: (authorization) => keys.authenticate(authorization),
    reserve: (p, model, estimatedTokens) => quota.reserve(p, model, estimatedTokens),
    rebind: (res, model) => quota.rebind(res as HeldReservation, model),
    settle,
    recordUsage,

    settleAndRecord(res, usage, rec) {
      const h = res as HeldReservation;
      // One round trip when the reservation is on the shared counters and settles in one call.
      if (!s.settleAndAppend || !h.inner || h.budgetHold || h.counters !== counters || rec.keyId === 'anonymous') {
        settle(res, usage);
        recordUsage(rec);
        return;
      }
      const full = ledgerRecord(rec);
      buffer.track(full, s.settleAndAppend(h.inner, quota.actualOf(usage), now(), full), (e) =>
        log.warn({ err: (e as Error).message }, 'settling a reservation failed'),
      );
    },

    allowReplicaPin() {
      return t.allow_replica_pin;
    },

    holdEnd: t.durable_usage ? (requestId, res) => ends.track(requestId, res) : undefined,

    registerRoutes(app: FastifyInstance) {
      registerMeRoute(app, (authorization) => keys.authenticate(authorization), s.counters, now);
    },

    async close() {
      // Unused leases go back before the Redis client closes (a crash leaves them to expire).
      if (sweep) clearInterval(sweep);
      await leases?.close().catch((e) => log.warn({ err: (e as Error).message }, 'counter leases could not be returned at shutdown'));
      await buffer
        .close()
        .catch((e) => log.warn({ err: (e as Error).message, lost: buffer.size }, 'usage records could not be written to the ledger at shutdown'));
      keys.close();
      // The Redis client itself is the host's: it closes after this.
      if (!over.stores && redis) {
        await s.keyCacheBus.close().catch(() => {});
        await s.ledger.close().catch(() => {});
      }
    },
  };
}

import { readFileSync, statSync } from 'node:fs';
import { Agent } from 'undici';
import { ConfigError, type ProviderConfig, type RouterConfig } from '@llmgw/config';
import type { Logger } from '@llmgw/observability';
import type { EndpointView } from '@llmgw/scheduling';
import type { Registry } from 'prom-client';
import { EndpointHealth, type BreakerState } from '../endpoint-health';
import { createProviderMetrics, type ProviderMetrics } from './metrics';

/** Endpoint ids (and pools) of providers: `provider:<catalog model>`. */
export const PROVIDER_PREFIX = 'provider:';

/**
 * The error-rate rule of a provider's breaker: over its last WINDOW answers (at least MIN_SAMPLES),
 * a share of faults of TRIP_RATIO or more opens it, even when successes keep breaking up the run of
 * consecutive faults that `breaker.failure_threshold` counts.
 */
export const ERROR_RATE_WINDOW = 20;
const ERROR_RATE_MIN_SAMPLES = 10;
const ERROR_RATE_TRIP = 0.5;

/** Below every self-hosted pool: a model with both replicas and a provider uses the provider last. */
const PROVIDER_POOL_PRIORITY = -1_000_000;

/** One provider upstream: a catalog model served by an OpenAI-compatible API elsewhere (docs/models.md, "Providers"). */
export interface ProviderUpstream {
  /** Endpoint id and pool: `provider:<model>`. */
  readonly id: string;
  /** The catalog model it serves. */
  readonly model: string;
  readonly cfg: ProviderConfig;
  /** Its own connection pool: connect_timeout, max_concurrency connections. */
  readonly agent: Agent;
  /** The key, read at start (a key file again when it changes); never logged, never sent anywhere but to the provider. */
  key?: string;
  /** The key file's modification time when it was last read, and when that was last checked (ms). */
  keyFileMtimeMs?: number;
  keyCheckedAt?: number;
}

/** How often a key file is checked for a new key (a rotation needs no restart). */
export const KEY_FILE_CHECK_MS = 5_000;

export interface ProvidersDeps {
  /** Where a key file that cannot be re-read is reported (its path, never a value). */
  log?: Pick<Logger, 'warn'>;
  registry: Registry;
  /** Breaker transitions (the router's llmgw_breaker_state gauge). */
  onTransition?: (id: string, from: BreakerState, to: BreakerState) => void;
  /**
   * Admission is on: a provider at max_concurrency stays usable and its requests wait in
   * admission's band queues (its pool's slots); off, it is unusable until one finishes.
   */
  admitted?: boolean;
  /** Environment the credentials' `env` is read from (tests). */
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

/**
 * The router's provider upstreams (docs/models.md, "Providers"), one per model
 * with a `provider` in the router's `models`. Each is a scheduling view like a
 * replica's (pool `provider:<model>`, below every self-hosted pool), so the
 * serving plan, the fallback chain, admission and the attempt stage treat it
 * as any endpoint. It has no `/metrics`: its health comes from its answers
 * only, in its own breaker (no cooldown after one error: one provider is one
 * endpoint, so a single 500 must not take it away for `cooldown_seconds`); it
 * is unavailable while `max_concurrency` requests are in flight to it.
 */
export class Providers {
  private readonly byId = new Map<string, ProviderUpstream>();
  private readonly byModel = new Map<string, ProviderUpstream>();
  readonly health: EndpointHealth;
  readonly metrics: ProviderMetrics;
  private readonly admitted: boolean;
  private readonly log?: Pick<Logger, 'warn'>;
  private readonly now: () => number;
  /** The last answers per provider, true = a fault (the error-rate rule). */
  private readonly recent = new Map<string, boolean[]>();

  /** Models whose provider came from the catalog view (sync), with the settings it was built from. */
  private readonly fromCatalog = new Map<string, string>();
  private readonly env: NodeJS.ProcessEnv;

  constructor(cfg: Pick<RouterConfig, 'models' | 'breaker'>, deps: ProvidersDeps) {
    this.admitted = deps.admitted ?? false;
    this.log = deps.log;
    this.now = deps.now ?? Date.now;
    this.env = deps.env ?? process.env;
    const issues: string[] = [];
    for (const m of cfg.models) {
      if (!m.provider) continue;
      const issue = this.add(m.name, m.provider);
      if (issue) issues.push(`models (${m.name}).provider.credentials: ${issue}`);
    }
    if (issues.length) throw new ConfigError('router config', issues);
    this.health = new EndpointHealth({
      cooldownMs: 0,
      failureThreshold: cfg.breaker.failure_threshold,
      scrapeFailureThreshold: Number.MAX_SAFE_INTEGER,
      baseBackoffMs: cfg.breaker.base_backoff,
      maxBackoffMs: cfg.breaker.max_backoff,
      now: deps.now,
    });
    this.health.onTransition = (id, from, to) => deps.onTransition?.(id, from, to);
    this.metrics = createProviderMetrics(deps.registry, () => [...this.byId.values()].map((p) => [p.model, this.health.inflight(p.id)]));
  }

  /** Builds model `model`'s upstream; the credentials' problem (where it looked, never a value) when its key cannot be read. */
  private add(model: string, cfg: ProviderConfig): string | undefined {
    let key: string | undefined;
    try {
      key = readKey(cfg, this.env);
    } catch (e) {
      return (e as Error).message;
    }
    const id = `${PROVIDER_PREFIX}${model}`;
    const p: ProviderUpstream = {
      id,
      model,
      cfg,
      key,
      keyFileMtimeMs: cfg.credentials?.file ? mtimeOf(cfg.credentials.file) : undefined,
      keyCheckedAt: this.now(),
      agent: new Agent({
        connections: cfg.max_concurrency,
        connectTimeout: cfg.connect_timeout,
        keepAliveTimeout: 60_000,
        // First-token and total limits are enforced per attempt (the provider's own).
        headersTimeout: 0,
        bodyTimeout: 0,
      }),
    };
    this.byId.set(id, p);
    this.byModel.set(model, p);
    return undefined;
  }

  /**
   * The providers of the placement-scheduler's catalog view (docs/models.md, "Providers"), by
   * model: new ones are built, changed ones rebuilt (their key read again), gone ones closed (a
   * request in flight keeps its connection). A provider of the router's own `models` wins over the
   * catalog's for the same model. Returns the models whose key could not be read, with where it
   * was looked for; they have no provider until a later view (or the same one, read again).
   */
  sync(catalog: ReadonlyMap<string, ProviderConfig>): Array<{ model: string; issue: string }> {
    const issues: Array<{ model: string; issue: string }> = [];
    for (const [model, was] of this.fromCatalog) {
      const now = catalog.get(model);
      if (now && JSON.stringify(now) === was) continue;
      this.fromCatalog.delete(model);
      const p = this.byModel.get(model);
      if (!p) continue;
      this.byModel.delete(model);
      this.byId.delete(p.id);
      this.recent.delete(p.id);
      void p.agent.close().catch(() => undefined);
    }
    for (const [model, cfg] of catalog) {
      if (this.fromCatalog.has(model) || this.byModel.has(model)) continue;
      const issue = this.add(model, cfg);
      if (issue) issues.push({ model, issue });
      else this.fromCatalog.set(model, JSON.stringify(cfg));
    }
    return issues;
  }

  get size(): number {
    return this.byId.size;
  }

  /** The provider behind endpoint id `id`; undefined for a replica. */
  get(id: string): ProviderUpstream | undefined {
    return id.startsWith(PROVIDER_PREFIX) ? this.byId.get(id) : undefined;
  }

  /** The provider serving catalog model `model`, if any. */
  forModel(model: string): ProviderUpstream | undefined {
    return this.byModel.get(model);
  }

  /**
   * The scheduling view of `model`'s provider: available while its breaker lets requests through
   * and (without admission, which queues for its slots) while it has a free slot.
   */
  views(model: string): EndpointView[] {
    const p = this.byModel.get(model);
    if (!p) return [];
    const inflight = this.health.inflight(p.id);
    return [
      {
        id: p.id,
        url: p.cfg.base_url,
        model,
        pool: p.id,
        poolPriority: PROVIDER_POOL_PRIORITY,
        engine: 'vllm',
        weight: 100,
        draining: false,
        stale: false,
        available: (this.admitted || inflight < p.cfg.max_concurrency) && this.health.available(p.id),
        inflight,
        batchCapacity: p.cfg.max_concurrency,
      },
    ];
  }

  /**
   * One answer of provider `id`: a fault or not. Opens its breaker when its faults reach the
   * error-rate rule; the window starts again once it has opened.
   */
  observe(id: string, fault: boolean): void {
    let w = this.recent.get(id);
    if (!w) this.recent.set(id, (w = []));
    w.push(fault);
    if (w.length > ERROR_RATE_WINDOW) w.shift();
    if (!fault || w.length < ERROR_RATE_MIN_SAMPLES) return;
    if (w.filter(Boolean).length / w.length < ERROR_RATE_TRIP) return;
    w.length = 0;
    this.health.trip(id);
  }

  /** The providers as admission's pool feed sees them: one replica per pool, its slots max_concurrency. */
  poolEndpoints(): Array<{ id: string; pool: string; model: string; maxNumSeqs: number }> {
    return [...this.byId.values()].map((p) => ({ id: p.id, pool: p.id, model: p.model, maxNumSeqs: p.cfg.max_concurrency }));
  }

  /** The provider's `authorization` header; undefined for a replica or a provider without credentials. */
  authorization(id: string): string | undefined {
    const p = this.get(id);
    if (!p) return undefined;
    this.refreshKey(p);
    return p.key === undefined ? undefined : `Bearer ${p.key}`;
  }

  /**
   * Reads a key file again when it changed (checked at most every KEY_FILE_CHECK_MS), so a rotated
   * key is used without a restart; one that cannot be read keeps the key read before.
   */
  private refreshKey(p: ProviderUpstream): void {
    const file = p.cfg.credentials?.file;
    const now = this.now();
    if (!file || now - (p.keyCheckedAt ?? 0) < KEY_FILE_CHECK_MS) return;
    p.keyCheckedAt = now;
    const mtime = mtimeOf(file);
    if (mtime === p.keyFileMtimeMs) return;
    try {
      p.key = readKey(p.cfg, {});
      p.keyFileMtimeMs = mtime;
    } catch (e) {
      this.log?.warn({ provider: p.id, err: (e as Error).message }, 'provider key file could not be read again; the key read before is still used');
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.byId.values()].map((p) => p.agent.close().catch(() => undefined)));
  }
}

/** Whether a pool is a provider's (admission keeps those in the router: the admission service does not know them). */
export function isProviderPool(pool: string): boolean {
  return pool.startsWith(PROVIDER_PREFIX);
}

/** The API path (`/v1/chat/completions`) under the provider's base URL, which includes its version (`…/v1`). */
export function providerUrl(p: ProviderUpstream, apiPath: string): string {
  const u = new URL(p.cfg.base_url);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}${apiPath.replace(/^\/v1(?=\/)/, '')}`;
  return u.toString();
}

function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The key from the credentials' file or environment variable; errors say where it was looked for, never what was found. */
function readKey(p: ProviderConfig, env: NodeJS.ProcessEnv): string | undefined {
  const c = p.credentials;
  if (!c) return undefined;
  let key: string | undefined;
  if (c.file !== undefined) {
    try {
      key = readFileSync(c.file, 'utf8').trim();
    } catch (e) {
      throw new Error(`cannot read ${c.file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!key) throw new Error(`${c.file} is empty`);
  } else {
    key = env[c.env!]?.trim();
    if (!key) throw new Error(`environment variable ${c.env} is not set`);
  }
  if (/[\r\n]/.test(key)) throw new Error(`the key in ${c.file ?? c.env} spans several lines`);
  return key;
}

import { Agent, request } from 'undici';
import { extractStats, type EngineDialect, type EngineStats, type MappingOverride } from '@llmgw/engine-metrics';
import type { Logger } from '@llmgw/observability';
import type { EndpointInfo, EndpointSource } from './types';

/** What the scraper knows about one endpoint right now. */
export interface ScrapeState {
  readonly id: string;
  /** The last good scrape's numbers (kept while stale). */
  stats?: EngineStats;
  /** Unix ms of the last good scrape. */
  lastSuccessMs?: number;
  /** True after a failed scrape, or when the last good one is older than staleAfterMs. */
  stale: boolean;
  /** Failed scrapes in a row (0 after a good one). */
  consecutiveFailures: number;
  /**
   * The last scrape got no answer at all (connection refused or reset, or timed out), as
   * opposed to an answer that was an HTTP error or broke the metric contract; false after a good one.
   */
  unreachable: boolean;
  lastError?: string;
  /** Current contract violation(s), joined; undefined when the scrape honours the contract. */
  violation?: string;
  /** Completions per second, from the finished-requests counter (EWMA). */
  drainRate?: number;
  /** High-water mark of observed `running`: the learned batch capacity. */
  batchCapacity: number;
}

export interface ScraperOptions {
  source: EndpointSource;
  /** Longest period; each loop waits intervalMs × [0.75, 1) between scrapes (jitter keeps loops apart). */
  intervalMs: number;
  timeoutMs?: number;
  /** A good scrape older than this counts as stale. Default 3 × intervalMs. */
  staleAfterMs?: number;
  /** Per-engine metric name overrides (config `engine_metrics`). */
  overrides?: Partial<Record<EngineDialect, MappingOverride>>;
  log?: Logger;
  /** Called after every scrape attempt (good or failed). */
  onScrape?: (ep: EndpointInfo, state: Readonly<ScrapeState>, ok: boolean) => void;
  /** Random source for jitter (tests). */
  random?: () => number;
  /** Clock for staleness and drain rates (tests); default Date.now. */
  now?: () => number;
}

interface Loop {
  ep: EndpointInfo;
  state: ScrapeState;
  timer?: NodeJS.Timeout;
  running: boolean;
  lastFinished?: { total: number; at: number };
}

const DRAIN_ALPHA = 0.3;

/**
 * One scrape loop per endpoint of an EndpointSource (docs/router.md, "Scraping"): GET /metrics
 * every intervalMs with jitter, read through the engine's metric mapping.
 * A failed scrape marks the endpoint stale but keeps its last numbers; a
 * contract violation is logged at warn once, and once more when it clears.
 */
export class Scraper {
  private readonly loops = new Map<string, Loop>();
  private readonly agent: Agent;
  private readonly unsubscribe: () => void;
  private readonly staleAfterMs: number;
  private readonly random: () => number;
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly opts: ScraperOptions) {
    this.staleAfterMs = opts.staleAfterMs ?? opts.intervalMs * 3;
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? Date.now;
    const timeout = opts.timeoutMs ?? Math.max(500, opts.intervalMs);
    this.agent = new Agent({ connections: 2, connectTimeout: timeout, headersTimeout: timeout, bodyTimeout: timeout, keepAliveTimeout: 30_000 });
    this.unsubscribe = opts.source.subscribe(() => this.sync());
    this.sync();
  }

  /** The state of one endpoint, staleness evaluated now. */
  state(id: string): Readonly<ScrapeState> | undefined {
    const l = this.loops.get(id);
    if (!l) return undefined;
    this.refreshStale(l.state);
    return l.state;
  }

  /** Every endpoint's state. */
  states(): Map<string, Readonly<ScrapeState>> {
    const m = new Map<string, Readonly<ScrapeState>>();
    for (const [id, l] of this.loops) {
      this.refreshStale(l.state);
      m.set(id, l.state);
    }
    return m;
  }

  /** Scrapes every endpoint once now (tests, startup). */
  async scrapeAll(): Promise<void> {
    await Promise.all([...this.loops.values()].map((l) => this.scrape(l)));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    for (const l of this.loops.values()) clearTimeout(l.timer);
    this.loops.clear();
    await this.agent.close().catch(() => undefined);
  }

  private refreshStale(s: ScrapeState): void {
    if (!s.stale && (s.lastSuccessMs === undefined || this.now() - s.lastSuccessMs > this.staleAfterMs)) s.stale = true;
  }

  /** Starts loops for new endpoints, stops removed ones, picks up changed URLs/engines. */
  private sync(): void {
    if (this.closed) return;
    const current = new Map(this.opts.source.all().map((e) => [e.id, e]));
    for (const [id, l] of this.loops) {
      const now = current.get(id);
      if (!now) {
        clearTimeout(l.timer);
        this.loops.delete(id);
      } else if (now.url !== l.ep.url || now.engine !== l.ep.engine) {
        clearTimeout(l.timer);
        this.loops.delete(id);
      } else {
        l.ep = now;
      }
    }
    for (const [id, ep] of current) {
      if (this.loops.has(id)) continue;
      const loop: Loop = { ep, state: { id, stale: true, consecutiveFailures: 0, unreachable: false, batchCapacity: 0 }, running: false };
      this.loops.set(id, loop);
      // The first scrape comes soon, spread over a tenth of the interval.
      this.schedule(loop, this.random() * this.opts.intervalMs * 0.1);
    }
  }

  private schedule(l: Loop, delayMs: number): void {
    if (this.closed) return;
    l.timer = setTimeout(() => {
      void this.scrape(l).finally(() => {
        if (this.loops.get(l.ep.id) === l) this.schedule(l, this.opts.intervalMs * (0.75 + 0.25 * this.random()));
      });
    }, delayMs);
    l.timer.unref();
  }

  private async scrape(l: Loop): Promise<void> {
    if (l.running || this.closed) return;
    l.running = true;
    const ep = l.ep;
    const s = l.state;
    let text: string | undefined;
    let error: string | undefined;
    let answered = true;
    let res: Awaited<ReturnType<typeof request>> | undefined;
    try {
      res = await request(`${ep.url}/metrics`, { dispatcher: this.agent, method: 'GET' });
      if (res.statusCode !== 200) {
        error = `HTTP ${res.statusCode}`;
        await res.body.dump();
      } else {
        text = await res.body.text();
      }
    } catch (e) {
      error = (e as Error).message || String(e);
      // No response headers: nothing answered (a non-200 status is an answer, and is not thrown).
      answered = res !== undefined;
    } finally {
      l.running = false;
    }
    if (this.closed || this.loops.get(ep.id) !== l) return;

    let ok = false;
    if (text !== undefined) {
      const r = extractStats(text, ep.engine, this.opts.overrides?.[ep.engine]);
      this.noteViolation(ep, s, r.violations);
      if (r.stats) {
        ok = true;
        this.accept(l, r.stats);
      } else {
        error = r.violations.join('; ');
      }
    }
    if (!ok) {
      s.stale = true;
      s.consecutiveFailures++;
      s.unreachable = !answered;
      s.lastError = error;
      this.opts.log?.debug({ endpoint: ep.id, err: error, failures: s.consecutiveFailures }, 'scrape failed');
    }
    this.opts.onScrape?.(ep, s, ok);
  }

  private accept(l: Loop, stats: EngineStats): void {
    const s = l.state;
    const now = this.now();
    s.stats = stats;
    s.lastSuccessMs = now;
    s.stale = false;
    s.consecutiveFailures = 0;
    s.unreachable = false;
    s.lastError = undefined;
    s.batchCapacity = Math.max(s.batchCapacity, stats.running);
    const fin = stats.requestsFinishedTotal;
    if (fin !== undefined) {
      const prev = l.lastFinished;
      if (prev && fin >= prev.total && now > prev.at) {
        const rate = ((fin - prev.total) * 1000) / (now - prev.at);
        s.drainRate = s.drainRate === undefined ? rate : DRAIN_ALPHA * rate + (1 - DRAIN_ALPHA) * s.drainRate;
      }
      l.lastFinished = { total: fin, at: now };
    }
  }

  private noteViolation(ep: EndpointInfo, s: ScrapeState, violations: string[]): void {
    const v = violations.length ? violations.join('; ') : undefined;
    if (v === s.violation) return;
    if (v) this.opts.log?.warn({ endpoint: ep.id, engine: ep.engine, violation: v }, 'engine metric contract violation');
    else this.opts.log?.warn({ endpoint: ep.id, engine: ep.engine, was: s.violation }, 'engine metric contract violation cleared');
    s.violation = v;
  }
}

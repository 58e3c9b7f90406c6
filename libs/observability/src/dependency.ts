import { Gauge, type Registry } from 'prom-client';
import type { Logger } from './logger';

/**
 * What a client of an outside dependency reports: `lost` when a call or a
 * connection fails because the dependency cannot be reached, `ok` when one
 * succeeds. Both are cheap and idempotent, so they can be called on every call.
 * `source` names one connection when several reach the same dependency (the
 * Redis clients of one service): it is lost while any source is down and back
 * once every source that was lost is ok again.
 */
export interface DependencyStatus {
  lost(err?: unknown, source?: string): void;
  ok(source?: string): void;
}

export interface DependencyMonitorOptions {
  /** Where the lost/back lines go. */
  log: Pick<Logger, 'warn'>;
  /** Adds `llmgw_dependency_up{dependency}` (1 up, 0 lost) to it when given. */
  registry?: Registry;
  now?: () => number;
}

function messageOf(err: unknown): string | undefined {
  if (err === undefined || err === null) return undefined;
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/**
 * One dependency as one state machine (docs/operations.md, "Redis, leader locks and lost
 * dependencies"): the first failure after it was up writes ONE warn line,
 * `dependency lost`, with the error; the first success after that writes ONE
 * warn line, `dependency back`, with how long it was away (`down_ms`). Every
 * failure in between is silent here (the caller may log it at debug), so an
 * outage under load is two lines, not one per failed call.
 */
export class DependencyMonitor implements DependencyStatus {
  private readonly down = new Map<string, string | undefined>();
  private since: number | undefined;
  private failures = 0;
  private readonly now: () => number;

  constructor(
    readonly name: string,
    private readonly o: DependencyMonitorOptions & { fields?: Record<string, unknown>; gauge?: Gauge },
  ) {
    this.now = o.now ?? Date.now;
    o.gauge?.set({ dependency: name }, 1);
  }

  /** True unless some source is lost. */
  get up(): boolean {
    return this.since === undefined;
  }

  /** When the current outage began (ms), if there is one. */
  get downSince(): number | undefined {
    return this.since;
  }

  lost(err?: unknown, source = 'default'): void {
    const msg = messageOf(err);
    this.failures++;
    if (this.down.has(source)) return;
    this.down.set(source, msg);
    if (this.since !== undefined) return;
    this.since = this.now();
    this.failures = 1;
    this.o.gauge?.set({ dependency: this.name }, 0);
    this.o.log.warn({ dependency: this.name, ...this.o.fields, ...(source !== 'default' ? { source } : {}), err: msg }, 'dependency lost');
  }

  ok(source = 'default'): void {
    if (!this.down.delete(source) || this.down.size > 0 || this.since === undefined) return;
    const downMs = Math.max(0, this.now() - this.since);
    this.since = undefined;
    this.o.gauge?.set({ dependency: this.name }, 1);
    this.o.log.warn({ dependency: this.name, ...this.o.fields, down_ms: downMs, failures: this.failures }, 'dependency back');
  }

  /** Drops a source that is going away (a client being closed) without reporting it back. */
  forget(source = 'default'): void {
    if (this.down.delete(source) && this.down.size === 0) this.since = undefined;
  }
}

/**
 * The dependencies of one process by name: asking twice for one name gives
 * the same monitor, so every client of one Redis server or one service shares
 * its outage (two lines per outage, whichever client saw it first).
 */
export class Dependencies {
  private readonly byName = new Map<string, DependencyMonitor>();
  private gauge?: Gauge;

  constructor(private readonly o: DependencyMonitorOptions) {
    if (o.registry)
      this.gauge =
        (o.registry.getSingleMetric('llmgw_dependency_up') as Gauge | undefined) ??
        new Gauge({
          name: 'llmgw_dependency_up',
          help: 'Whether an outside dependency (Redis, accounting, admission, inventory) answers (1) or is lost (0).',
          labelNames: ['dependency'],
          registers: [o.registry],
        });
  }

  get(name: string, fields?: Record<string, unknown>): DependencyMonitor {
    let d = this.byName.get(name);
    if (!d) {
      d = new DependencyMonitor(name, { ...this.o, fields, gauge: this.gauge });
      this.byName.set(name, d);
    }
    return d;
  }
}

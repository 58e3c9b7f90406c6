import { randomBytes } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Catalog } from '@llmgw/config';
import type { Logger } from '@llmgw/observability';
import {
  quotaKey,
  Reconciler,
  scalingMode,
  type QuotaRule,
  type EndpointPublisher,
  type AppliedCapacity,
  type Model,
  type PassResult,
  type ShardCommandSink,
} from '@llmgw/placement';
import { fleetFromWire, type InventoryNodeLike } from './fleet-map';
import type { CatalogViewWriter, TargetStore } from '@llmgw/stores';
import type { QuotaUsage } from '@llmgw/control-rpc';
import type { QuotaStore } from './quota-store';
import { catalogEntries, type Target } from './redis-state';
import type { Autoscaler } from './autoscaler';
import type { AppliedCapacityStore } from './applied-store';

/** The fleet as inventory's watch keeps it (inventory-rpc FleetWatch + WatchedFleet behind it). */
export interface FleetSource {
  /** True once the first snapshot arrived; no pass runs before (it would adopt nothing and place everything). */
  synced(): boolean;
  nodes(): Iterable<InventoryNodeLike>;
  /** Called after every applied event. */
  onChange(cb: () => void): void;
  close(): void;
}

/** Leadership as the scheduler needs it (LeaderElection from @llmgw/stores fits). */
export interface Leadership {
  readonly fencingToken: number | undefined;
}

export interface SchedulerOptions {
  catalog: Catalog;
  fleet: FleetSource;
  sink: ShardCommandSink;
  publisher: EndpointPublisher;
  leadership: Leadership;
  log: Logger;
  registry?: Registry;
  /** Optional shared state (Redis, or in process): catalog view for routers, demand, operator targets. */
  catalogView?: CatalogViewWriter;
  targets?: TargetStore;
  /** Capacity applied from measured profiles (`ctl capacity apply`, docs/capacity.md). */
  applied?: AppliedCapacityStore;
  /** Operator quota overrides (`ctl quota set`). */
  quotas?: QuotaStore;
  /** Reconcile at least this often, ms (default 5 s; docs/placement.md, "The reconciler"). */
  intervalMs?: number;
  /** Quiet time after a fleet event before the pass it triggers, ms. */
  debounceMs?: number;
  now?: () => number;
  reconciler?: Partial<ConstructorParameters<typeof Reconciler>[0]>;
  /** When set, desired replicas follow it (docs/capacity.md "The autoscaler"). */
  autoscaler?: Autoscaler;
}

/** "llama-3-3-70b-3f9a0c1d": the model, sanitised, and random bytes (never reused across restarts). */
export function newReplicaId(model: string): string {
  const base =
    model
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'replica';
  return `${base}-${randomBytes(4).toString('hex')}`;
}

/**
 * The placement-scheduler's loop: a reconciler pass every `intervalMs` and
 * shortly after every fleet event, on the leader only; the router-facing
 * catalog view and operator targets kept in step.
 */
export class PlacementScheduler {
  readonly reconciler: Reconciler;
  private timer?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private wake?: NodeJS.Timeout;
  private wakeAt?: number;
  private closed = false;
  private readonly now: () => number;
  private readonly metrics?: ReturnType<typeof makeMetrics>;
  private lastPass: PassResult | undefined;

  constructor(private readonly o: SchedulerOptions) {
    this.now = o.now ?? Date.now;
    const auto = o.autoscaler;
    this.reconciler = new Reconciler({
      catalog: () => o.catalog.models,
      sink: o.sink,
      publisher: o.publisher,
      fencingToken: () => o.leadership.fencingToken,
      now: this.now,
      newReplicaId,
      log: o.log,
      onPass: (r) => this.recordPass(r),
      ...(auto ? { autoscale: (m: Model, base: number, max: number) => auto.desired(m.name, base, max) } : {}),
      ...o.reconciler,
    });
    if (o.registry) this.metrics = makeMetrics(o.registry);
  }

  async start(): Promise<void> {
    if (this.o.targets) for (const [m, t] of await this.o.targets.load()) if (this.o.catalog.byName.has(m)) this.reconciler.setTarget(m, t);
    if (this.o.applied) for (const [m, a] of await this.o.applied.load()) if (this.o.catalog.byName.has(m)) this.reconciler.setApplied(m, a);
    if (this.o.quotas) this.reconciler.sharing.setOverrides(await this.o.quotas.load());
    this.o.fleet.onChange(() => this.soon());
    this.timer = setInterval(() => void this.tick(), this.o.intervalMs ?? 5_000);
    this.timer.unref();
    await this.tick();
  }

  /** A pass shortly (coalescing bursts of events). */
  soon(): void {
    if (this.closed || this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      void this.tick();
    }, this.o.debounceMs ?? 100);
    this.debounce.unref();
  }

  /** A request arrived for a model (from routers through Redis). */
  noteDemand(model: string, atMs = this.now()): void {
    const m = this.o.catalog.byName.get(model);
    if (!m) return;
    this.reconciler.noteDemand(m.name, atMs);
  }

  /** Every quota in force with its usage (`ctl quota show`). */
  quotas(): QuotaUsage[] {
    return this.reconciler.sharing.usage(this.o.catalog.models, this.reconciler.runningReplicas());
  }

  /** `ctl quota set`: stored first (so a restart or standby keeps it), then in force; false when nothing changed. */
  async setQuota(id: Pick<QuotaRule, 'scope' | 'name' | 'capacityClass'>, rule: QuotaRule | undefined): Promise<boolean> {
    const cur = this.reconciler.sharing.overrideList().find((r) => quotaKey(r) === quotaKey(id));
    if (JSON.stringify(cur) === JSON.stringify(rule)) return false;
    await this.o.quotas?.set(id, rule);
    this.reconciler.sharing.setOverride(id, rule);
    this.soon();
    return true;
  }

  /** One pass now: refresh demand, reconcile, publish the catalog view. */
  async tick(): Promise<PassResult | undefined> {
    if (this.closed || !this.o.fleet.synced()) return undefined;
    try {
      if (this.o.catalogView) for (const [m, at] of await this.o.catalogView.demand()) this.noteDemand(m, at);
      const r = await this.reconciler.reconcile(fleetFromWire(this.o.fleet.nodes()));
      this.wakeForDeadline();
      if (r.leader && this.o.catalogView)
        await this.o.catalogView.write(catalogEntries(this.o.catalog.models, (m) => this.reconciler.scalingOf(m), this.o.catalog.providers));
      return r;
    } catch (e) {
      this.o.log.warn({ err: (e as Error).message }, 'reconcile pass failed; retrying on the next tick');
      return undefined;
    }
  }

  /** A pass when the earliest drain deadline falls, so a drain timeout is kept to the ms, not to the next interval. */
  private wakeForDeadline(): void {
    const at = this.reconciler.nextDeadlineMs();
    if (at === undefined || this.closed || (this.wakeAt !== undefined && this.wakeAt <= at)) return;
    if (this.wake) clearTimeout(this.wake);
    this.wakeAt = at;
    this.wake = setTimeout(
      () => {
        this.wake = this.wakeAt = undefined;
        void this.tick();
      },
      Math.max(0, at - this.now()),
    );
    this.wake.unref();
  }

  /** `ctl model target`: an operator override of min/max, persisted when Redis is configured. */
  async setTarget(model: Model, t: Target | undefined): Promise<boolean> {
    const before = this.reconciler.target(model.name);
    if (JSON.stringify(before) === JSON.stringify(t)) return false;
    await this.o.targets?.set(model.name, t);
    this.reconciler.setTarget(model.name, t);
    this.soon();
    return true;
  }

  /**
   * `ctl capacity apply`: routing weights and target waiting from measured
   * profiles, stored first (a restart or standby keeps them), then published
   * with the next pass; false when the weights and targets are already these.
   */
  async setApplied(model: Model, a: AppliedCapacity | undefined): Promise<boolean> {
    const key = (x: AppliedCapacity | undefined) => (x ? JSON.stringify([x.profiles, x.targetWaitingPerReplica]) : '');
    if (key(this.reconciler.applied(model.name)) === key(a)) return false;
    await this.o.applied?.set(model.name, a);
    this.reconciler.setApplied(model.name, a);
    this.soon();
    return true;
  }

  /** The autoscaler's latest decision for a model, as `ctl models` shows it; undefined when it has none. */
  autoscaleStatus(
    model: string,
  ): { action: string; reason: string; from: number; to: number; atMs: number; lastChange: string; lastChangeMs: number } | undefined {
    const d = this.o.autoscaler?.lastDecision(model);
    if (!d) return undefined;
    const c = this.o.autoscaler!.lastChange(model);
    return { action: d.action, reason: d.reason, from: d.from, to: d.to, atMs: d.atMs, lastChange: c?.reason ?? '', lastChangeMs: c?.atMs ?? 0 };
  }

  lastPassResult(): PassResult | undefined {
    return this.lastPass;
  }

  private recordPass(r: PassResult): void {
    this.lastPass = r;
    const m = this.metrics;
    if (!m) return;
    m.leader.set(r.leader ? 1 : 0);
    if (!r.leader) return;
    m.passes.inc();
    m.placed.inc(r.placed);
    m.failed.inc(r.failed);
    m.orphans.inc(r.orphansStopped);
    m.replicas.reset();
    for (const v of this.reconciler.replicaViews()) m.replicas.inc({ model: v.model, state: v.state });
    m.unschedulable.reset();
    for (const model of this.o.catalog.models) {
      m.unschedulable.set({ model: model.name }, r.unschedulable.includes(model.name) ? 1 : 0);
      m.desired.set({ model: model.name, mode: scalingMode(this.reconciler.scalingOf(model)) }, this.reconciler.desired(model));
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    if (this.wake) clearTimeout(this.wake);
    this.o.fleet.close();
  }
}

function makeMetrics(registry: Registry) {
  return {
    leader: new Gauge({ name: 'llmgw_placement_leader', help: '1 while this scheduler holds the leader lock', registers: [registry] }),
    passes: new Counter({ name: 'llmgw_placement_reconcile_passes_total', help: 'Reconciler passes run as leader', registers: [registry] }),
    placed: new Counter({ name: 'llmgw_placement_replicas_placed_total', help: 'Replicas placed (StartShard sent)', registers: [registry] }),
    failed: new Counter({
      name: 'llmgw_placement_replicas_failed_total',
      help: 'Replicas failed (a shard failed, its node was lost, or it never became ready)',
      registers: [registry],
    }),
    orphans: new Counter({ name: 'llmgw_placement_orphan_shards_stopped_total', help: 'Shards no replica claimed, stopped', registers: [registry] }),
    replicas: new Gauge({ name: 'llmgw_placement_replicas', help: 'Replicas by model and state', labelNames: ['model', 'state'], registers: [registry] }),
    desired: new Gauge({
      name: 'llmgw_placement_replicas_desired',
      help: 'Replicas the reconciler wants, by model and scaling mode',
      labelNames: ['model', 'mode'],
      registers: [registry],
    }),
    unschedulable: new Gauge({
      name: 'llmgw_placement_unschedulable',
      help: '1 when the model could not get every replica it wants (see explain-placement)',
      labelNames: ['model'],
      registers: [registry],
    }),
  };
}

import { explain } from '../place';
import type { RunningReplica } from '../policy';
import type { ExplanationWithRoom, Sharing } from '../sharing';
import { EMPTY_FOOTPRINT, type AppliedCapacity, type Explanation, type Model, type Scaling } from '../types';
import { NOT_LEADER, resolveOptions, type PassResult, type ReconcilerOptions } from './options';
import { claimShards, converge, markEvacuations, stopEnded, updateReplicas, type Pass } from './phases';
import { ReconcilerState } from './state';
import type { FleetView, PlacedEndpoint, ReplicaView } from './types';

export type { PassResult, ReconcilerLog, ReconcilerOptions } from './options';

/**
 * The reconciler (docs/placement.md, "The reconciler"): compares desired replicas (catalog scaling, operator targets,
 * on-demand use) with actual ones (what the fleet reports) and closes the
 * gap through shard commands. Pure apart from the injected sink, publisher
 * and clock; one pass at a time.
 *
 * Replica state lives only here and in the fleet: a new leader (or a
 * restarted one) rebuilds it from the shards agents report, adopting those
 * whose spec names a catalog model, so nothing is started twice; a shard
 * nothing claims for two consecutive passes is stopped (docs/inventory.md#what-it-keeps-and-where-from).
 */
export class Reconciler {
  private readonly st: ReconcilerState;
  private ledBy: number | undefined;
  private running: Promise<PassResult> | undefined;
  private again = false;

  constructor(opts: ReconcilerOptions) {
    this.st = new ReconcilerState(resolveOptions(opts));
  }

  // ---- inputs besides the fleet ----

  /** A request arrived for `model` (on demand: starts it, and use keeps it alive). */
  noteDemand(model: string, atMs = this.st.o.now()): void {
    if ((this.st.lastDemand.get(model) ?? -Infinity) < atMs) this.st.lastDemand.set(model, atMs);
  }

  /** When a request last asked for `model` (unix ms), if ever. */
  lastDemandOf(model: string): number | undefined {
    return this.st.lastDemand.get(model);
  }

  /** An operator override of the catalog's min/max (`ctl model target`); undefined clears it. */
  setTarget(model: string, t: { min: number; max: number } | undefined): void {
    if (t) this.st.targets.set(model, t);
    else this.st.targets.delete(model);
  }

  target(model: string): { min: number; max: number } | undefined {
    return this.st.targets.get(model);
  }

  /** Capacity applied from measured profiles (`ctl capacity apply`): weights and target waiting; undefined clears it. */
  setApplied(model: string, a: AppliedCapacity | undefined): void {
    if (a) this.st.applied.set(model, a);
    else this.st.applied.delete(model);
  }

  applied(model: string): AppliedCapacity | undefined {
    return this.st.applied.get(model);
  }

  /** The scaling in force: the catalog's, with an operator target's min/max and applied capacity over it. */
  scalingOf(m: Model): Scaling {
    return this.st.scalingOf(m);
  }

  /** Replicas wanted now (docs/placement.md#scaling). */
  desired(m: Model, now = this.st.o.now()): number {
    return this.st.desired(m, now);
  }

  /** Replicas wanted without the autoscaler (docs/capacity.md). */
  baseDesired(m: Model, now = this.st.o.now()): number {
    return this.st.baseDesired(m, now);
  }

  // ---- what ctl reads ----

  replicaViews(): ReplicaView[] {
    return [...this.st.replicas.values()]
      .map((r) => ({
        id: r.id,
        model: r.model,
        profile: r.profile,
        fabric: r.fabric,
        gpuClass: r.gpuClass,
        pool: r.pool,
        state: r.state,
        endpoint: r.shards[0]?.endpoint ?? '',
        shards: r.shards.map((s) => ({
          shardId: s.spec.shardId,
          nodeId: s.nodeId,
          rank: s.spec.rank,
          gpuIndices: s.spec.gpuIndices,
          state: s.state,
          message: s.message,
        })),
        createdAtMs: r.createdAtMs,
        readyAtMs: r.readyAtMs,
        adopted: r.adopted,
        message: r.message,
      }))
      .sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : a.id < b.id ? -1 : 1));
  }

  /** Why the model's last placement attempt failed; undefined when it did not. */
  lastExplanation(model: string): Explanation | undefined {
    return this.st.explanations.get(model);
  }

  /**
   * What placement would do for one more replica of `m` now (`ctl
   * explain-placement`), with the room it would make (a preemption or moves)
   * when no profile fits: worked out on a copy, nothing is changed.
   */
  explain(m: Model, profile?: string): ExplanationWithRoom {
    const { fleet, footprints } = this.st.fleetNow(m.name);
    const fp = footprints.get(m.name) ?? EMPTY_FOOTPRINT;
    const live = this.st.liveOf(m.name).length;
    const atMax = live >= this.st.scalingOf(m).max && this.st.scalingOf(m).max > 0;
    const catalog = this.st.o.catalog();
    const running = this.st.runningReplicas();
    const e = explain(fleet, m, { footprint: fp, all: true, profile, atMax, guard: this.st.sharing.guard(catalog, m, fleet, running) });
    if (e.schedulable || atMax) return e;
    const room = this.st.sharing.plan(catalog, m, fleet, running, fp);
    return room ? { ...e, room } : e;
  }

  /** Classes, quotas and facility in force, and the operator's quota overrides (`ctl quota`). */
  get sharing(): Sharing {
    return this.st.sharing;
  }

  /** The replicas holding GPUs now, as placement policy counts them. */
  runningReplicas(): RunningReplica[] {
    return this.st.runningReplicas();
  }

  // ---- the pass (one function per phase: phases.ts) ----

  /** Runs a pass against the latest fleet; concurrent calls coalesce into one more pass. */
  reconcile(view?: FleetView): Promise<PassResult> {
    if (view) this.st.view = view;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let r: PassResult;
      do {
        this.again = false;
        r = await this.pass();
        this.st.o.onPass?.(r);
      } while (this.again);
      return r;
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<PassResult> {
    const token = this.st.o.fencingToken();
    if (token === undefined) {
      if (this.ledBy !== undefined) this.forget();
      return NOT_LEADER;
    }
    if (this.ledBy !== token) {
      // A new term: what a previous term believed may be stale; rebuild from the fleet.
      this.forget();
      this.ledBy = token;
    }
    const view = this.st.view;
    const pass: Pass = {
      now: this.st.o.now(),
      token,
      view,
      nodes: new Map(view.nodes.map((n) => [n.id, n])),
      reports: new Map(view.shards.map((s) => [s.shardId, s])),
      models: new Map(this.st.o.catalog().map((m) => [m.name, m])),
      res: { placed: 0, failed: 0, drained: 0, stopped: 0, orphansStopped: 0, orphansDeferred: 0, adopted: 0, unschedulable: [] },
    };
    claimShards(this.st, pass);
    updateReplicas(this.st, pass);
    markEvacuations(this.st, pass);
    await converge(this.st, pass);
    await stopEnded(this.st, pass);
    // Publish Ready replicas; draining ones have already left the list.
    await this.st.publish();
    return { leader: true, ...pass.res };
  }

  private forget(): void {
    this.st.replicas.clear();
    this.st.unclaimedLastPass = new Set();
    this.ledBy = undefined;
    // Queued orphan stops belong to the old term (their token); those in flight finish on their own.
    this.st.orphans.reset();
  }

  /** Resolves once no orphan stop is queued or in flight (tests, shutdown). */
  orphanStopsSettled(): Promise<void> {
    return this.st.orphans.settled();
  }

  /** Orphan stops queued or in flight. */
  orphanStopsPending(): number {
    return this.st.orphans.pendingCount();
  }

  /**
   * When the next pass must run for a drain to end on time (unix ms): the
   * earliest deadline of a draining replica; undefined when none drains.
   * The scheduler wakes then, so `--replica-timeout 2s` takes 2 s, not 2 s
   * plus up to a reconcile interval.
   */
  nextDeadlineMs(): number | undefined {
    let next: number | undefined;
    for (const r of this.st.replicas.values()) {
      if (r.state !== 'draining') continue;
      const at = r.drainStartedAtMs + r.drainTimeoutMs;
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  /**
   * The published set: Ready replicas that are not draining, each as the
   * endpoint record routers and admission read (what rank 0 runs with: its
   * batch slots, scheduling policy, KV-event sockets on the endpoint's host,
   * and whether it wants the replica's engine secret).
   */
  endpoints(): PlacedEndpoint[] {
    return this.st.endpoints();
  }
}

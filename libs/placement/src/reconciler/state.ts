import { Fleet } from '../fleet';
import { domainOf } from '../place';
import type { RunningReplica } from '../policy';
import { runningFrom, Sharing } from '../sharing';
import { EMPTY_FOOTPRINT, scalingMode, type AppliedCapacity, type Explanation, type Model, type ModelFootprint, type Scaling } from '../types';
import { publishedEndpoints } from './endpoints';
import type { ResolvedOptions } from './options';
import { OrphanStops } from './orphans';
import type { Backoff, ReplicaRec } from './records';
import { TERMINAL_SHARD_STATES, type FleetView, type PlacedEndpoint, type ReconcilerNode } from './types';

/**
 * What the reconciler knows between passes, and the steps its phases share
 * (phases.ts, launch.ts). Replica state lives only here and in the fleet.
 */
export class ReconcilerState {
  readonly replicas = new Map<string, ReplicaRec>();
  readonly backoff = new Map<string, Backoff>();
  readonly lastDemand = new Map<string, number>();
  readonly targets = new Map<string, { min: number; max: number }>();
  /** Capacity applied from measured profiles, per model (docs/capacity.md "Applying a profile"). */
  readonly applied = new Map<string, AppliedCapacity>();
  readonly explanations = new Map<string, Explanation>();
  unclaimedLastPass = new Set<string>();
  view: FleetView = { nodes: [], shards: [] };
  readonly orphans: OrphanStops;
  /** Classes, quotas, facility, and the GPUs held for a preemption or defragmentation under way. */
  readonly sharing: Sharing;
  private published = '';

  constructor(readonly o: ResolvedOptions) {
    this.orphans = new OrphanStops(o, () => this.view.nodes);
    // A reservation outlives the victims' drain and stop, plus a margin; then the model tries again.
    this.sharing = new Sharing(o.policy ?? {}, o.drainTimeoutMs + o.reportGraceMs + 60_000);
  }

  /** The replicas holding GPUs now, as placement policy counts them. */
  runningReplicas(): RunningReplica[] {
    return runningFrom(this.replicas.values(), this.view.shards, new Map(this.o.catalog().map((m) => [m.name, m])));
  }

  /** The scaling in force: the catalog's, with an operator target's min/max and the applied capacity's target waiting over it. */
  scalingOf(m: Model): Scaling {
    const t = this.targets.get(m.name);
    const a = this.applied.get(m.name);
    if (!t && !a) return m.scaling;
    return { ...m.scaling, ...(t ? { min: t.min, max: t.max } : {}), ...(a ? { targetWaitingPerReplica: a.targetWaitingPerReplica } : {}) };
  }

  /** Replicas wanted now (docs/placement.md#scaling), the autoscaler's count when it has one (docs/capacity.md). */
  desired(m: Model, now = this.o.now()): number {
    const base = this.baseDesired(m, now);
    if (!this.o.autoscale) return base;
    const max = this.scalingOf(m).max;
    return Math.min(max, Math.max(base, this.o.autoscale(m, base, max)));
  }

  /** Replicas wanted without the autoscaler: the scaling's min, or 1 while an on-demand model is in use. */
  baseDesired(m: Model, now = this.o.now()): number {
    const s = this.scalingOf(m);
    if (scalingMode(s) === 'off') return 0;
    const last = this.lastDemand.get(m.name);
    const inUse = last !== undefined && (s.idleTimeoutMs === 0 || now - last < s.idleTimeoutMs);
    return Math.min(s.max, Math.max(s.min, inUse ? 1 : 0));
  }

  liveOf(model: string): ReplicaRec[] {
    return [...this.replicas.values()].filter((r) => r.model === model && !r.evacuating && (r.state === 'starting' || r.state === 'ready'));
  }

  /**
   * The fleet with every GPU held by a replica or a reported live shard taken
   * (a stopping replica's shard the agent reports stopped holds none), and
   * each model's footprint. With `forModel`, GPUs reserved for other models'
   * preemptions or defragmentations under way are taken too.
   */
  fleetNow(forModel?: string): { fleet: Fleet; footprints: Map<string, ModelFootprint> } {
    const alloc = new Map<string, Set<number>>();
    const take = (node: string, gpus: readonly number[]) => {
      const s = alloc.get(node) ?? new Set<number>();
      for (const g of gpus) s.add(g);
      alloc.set(node, s);
    };
    for (const r of this.replicas.values()) for (const s of r.shards) if (!(r.state === 'stopping' && s.state === 'stopped')) take(s.nodeId, s.spec.gpuIndices);
    for (const rep of this.view.shards) if (rep.spec && !TERMINAL_SHARD_STATES.has(rep.state)) take(rep.nodeId, rep.spec.gpuIndices);
    if (forModel !== undefined) for (const s of this.sharing.reservedAgainst(forModel, this.o.now())) take(s.nodeId, s.gpuIndices);
    const fleet = new Fleet(
      this.view.nodes.map((n) => (n.draining && !n.cordoned ? { ...n, cordoned: true } : n)),
      alloc,
    );
    const footprints = new Map<string, ModelFootprint>();
    for (const r of this.replicas.values()) {
      if (r.state !== 'starting' && r.state !== 'ready') continue;
      const fp = footprints.get(r.model) ?? EMPTY_FOOTPRINT;
      const nodes = new Set(fp.nodes);
      const fabrics = new Set(fp.fabrics);
      for (const s of r.shards) {
        nodes.add(s.nodeId);
        const n = fleet.node(s.nodeId);
        if (!r.fabric && n) fabrics.add(domainOf(n));
      }
      if (r.fabric) fabrics.add(r.fabric);
      footprints.set(r.model, { replicas: fp.replicas + 1, nodes, fabrics });
    }
    return { fleet, footprints };
  }

  /**
   * The drain limit of a replica moved off draining nodes: the shortest
   * `--replica-timeout` among the draining nodes it has shards on, else
   * drainTimeoutMs.
   */
  nodeDrainTimeout(r: ReplicaRec, nodes: Map<string, ReconcilerNode>): number {
    const set = r.shards
      .map((s) => nodes.get(s.nodeId))
      .filter((n) => n?.draining && (n.drainTimeoutMs ?? 0) > 0)
      .map((n) => n!.drainTimeoutMs!);
    return set.length ? Math.min(...set) : this.o.drainTimeoutMs;
  }

  async startDrain(r: ReplicaRec, why: string, now: number, token: number, timeoutMs = this.o.drainTimeoutMs): Promise<void> {
    r.evacuating = false;
    if (r.state !== 'ready') {
      r.state = 'stopping';
      r.message = why;
      return;
    }
    r.state = 'draining';
    r.message = why;
    r.drainStartedAtMs = now;
    r.drainTimeoutMs = timeoutMs;
    // Withdraw from routers before the engine is told, so no new request lands on it.
    await this.publish();
    const s = r.shards[0];
    await this.send(() => this.o.sink.drain(s.nodeId, s.spec.shardId, why, timeoutMs, token), s.spec.shardId);
    this.o.log?.info({ replica: r.id, model: r.model, reason: why, timeoutMs }, 'draining a replica');
  }

  /** Runs one command; false (logged) when it failed, so the next pass retries it. */
  async send(fn: () => Promise<void>, shardId: string): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (e) {
      this.o.log?.warn({ shard: shardId, err: (e as Error).message }, 'shard command failed; retrying next pass');
      return false;
    }
  }

  async publish(): Promise<void> {
    const list = this.endpoints();
    const key = JSON.stringify(list);
    if (key === this.published) return;
    try {
      await this.o.publisher.publish(list);
      this.published = key;
    } catch (e) {
      this.o.log?.warn({ err: (e as Error).message }, 'endpoint publication failed; retrying next pass');
    }
  }

  /** The published set (see Reconciler.endpoints). */
  endpoints(): PlacedEndpoint[] {
    return publishedEndpoints(this.replicas.values(), !!this.o.engineSecret, this.applied);
  }
}

import { classOf } from './classes';
import { planDefrag } from './defrag';
import type { Fleet } from './fleet';
import type { PlacementGuard } from './place';
import { Policy, type PolicyConfig, type RunningReplica } from './policy';
import { planPreemption } from './preemption';
import type { QuotaRule } from './quotas';
import { TERMINAL_SHARD_STATES, type ShardReport } from './reconciler/types';
import type { Explanation, Model, ModelFootprint, PlacementDecision } from './types';

/** One quota's identity: scope, name and class ("project/search/*"). */
export function quotaKey(r: Pick<QuotaRule, 'scope' | 'name' | 'capacityClass'>): string {
  return `${r.scope}/${r.name}/${r.capacityClass ?? '*'}`;
}

/** What the reconciler knows of one replica, enough for policy. */
export interface ReplicaLike {
  readonly id: string;
  readonly model: string;
  readonly state: string;
  readonly createdAtMs: number;
  readonly gpuClass: string;
  readonly shards: ReadonlyArray<{ readonly nodeId: string; readonly spec: { readonly gpuIndices: readonly number[] } }>;
}

/**
 * The replicas holding GPUs as policy sees them: the reconciler's starting
 * and ready ones, plus live shards agents report that no replica of ours
 * claims (a follower's view, adopted ones before adoption), grouped by replica.
 */
export function runningFrom(replicas: Iterable<ReplicaLike>, reports: readonly ShardReport[], models: ReadonlyMap<string, Model>): RunningReplica[] {
  const out: RunningReplica[] = [];
  const known = new Set<string>();
  for (const r of replicas) {
    known.add(r.id);
    if (r.state !== 'starting' && r.state !== 'ready') continue;
    const m = models.get(r.model);
    out.push({
      id: r.id,
      model: r.model,
      ...(m?.project ? { project: m.project } : {}),
      capacityClass: m ? classOf(m) : 'standard',
      createdAtMs: r.createdAtMs,
      gpuClass: r.gpuClass,
      shards: r.shards.map((s) => ({ nodeId: s.nodeId, gpuIndices: s.spec.gpuIndices })),
    });
  }
  const groups = new Map<string, ShardReport[]>();
  for (const rep of reports) {
    if (!rep.spec || known.has(rep.replicaId) || TERMINAL_SHARD_STATES.has(rep.state) || rep.state === 'draining') continue;
    groups.set(rep.replicaId, [...(groups.get(rep.replicaId) ?? []), rep]);
  }
  for (const [id, reps] of groups) {
    const spec = reps[0].spec!;
    const m = models.get(spec.model);
    const p = m?.profiles.find((x) => x.name === spec.profile);
    out.push({
      id,
      model: spec.model,
      ...(m?.project ? { project: m.project } : {}),
      capacityClass: m ? classOf(m) : 'standard',
      createdAtMs: 0,
      gpuClass: p?.gpuClass ?? '',
      shards: reps.map((x) => ({ nodeId: x.nodeId, gpuIndices: x.spec!.gpuIndices })),
    });
  }
  return out;
}

/** Room made for one replica: the replicas to drain and where it then goes (`explain-placement`, the reconciler). */
export interface RoomPlan {
  readonly kind: 'preemption' | 'defragmentation';
  readonly victims: ReadonlyArray<{
    readonly replica: string;
    readonly model: string;
    readonly capacityClass: string;
    readonly why: 'class' | 'guarantee' | 'move';
    readonly detail: string;
  }>;
  readonly decision: PlacementDecision;
}

/** An Explanation with the room placement would make, when it would make some. */
export interface ExplanationWithRoom extends Explanation {
  readonly room?: RoomPlan;
}

interface Reservation {
  readonly model: string;
  readonly shards: PlacementDecision['shards'];
  readonly victims: ReadonlySet<string>;
  readonly untilMs: number;
}

/**
 * What the reconciler keeps between passes for a shared cluster
 * (docs/placement.md "Sharing a cluster"): the policy of the current catalog,
 * and the GPUs reserved for a model whose preemption or defragmentation is
 * under way, so nothing else lands there while the victims drain.
 */
export class Sharing {
  private readonly reservations = new Map<string, Reservation>();
  private policyKey: readonly Model[] | undefined;
  private current: Policy | undefined;
  /** Operator overrides (`ctl quota set`) by quotaKey; they replace the catalog's rule of the same key. */
  private overrides = new Map<string, QuotaRule>();

  constructor(
    private readonly config: PolicyConfig,
    private readonly holdMs: number,
  ) {}

  /** The policy for this catalog (rebuilt when the catalog or an override changes). */
  policy(catalog: readonly Model[]): Policy {
    if (!this.current || this.policyKey !== catalog) {
      this.current = new Policy(catalog, { ...this.config, quotas: this.quotas() });
      this.policyKey = catalog;
    }
    return this.current;
  }

  /** The quotas in force: the catalog's, each replaced by its override, then overrides of new keys. */
  quotas(): QuotaRule[] {
    const base = this.config.quotas ?? [];
    const out = base.map((r) => this.overrides.get(quotaKey(r)) ?? r);
    const have = new Set(base.map(quotaKey));
    for (const [k, r] of this.overrides) if (!have.has(k)) out.push(r);
    return out;
  }

  /** Replaces every operator override (as loaded from the store, or after `ctl quota set`). */
  setOverrides(rules: readonly QuotaRule[]): void {
    this.overrides = new Map(rules.map((r) => [quotaKey(r), r]));
    this.current = undefined;
  }

  /** The operator overrides now. */
  overrideList(): QuotaRule[] {
    return [...this.overrides.values()];
  }

  /** Sets (or, with undefined, clears) one override. */
  setOverride(id: Pick<QuotaRule, 'scope' | 'name' | 'capacityClass'>, rule: QuotaRule | undefined): void {
    if (rule) this.overrides.set(quotaKey(id), rule);
    else this.overrides.delete(quotaKey(id));
    this.current = undefined;
  }

  /** Every quota in force with the GPUs the running replicas count against it (`ctl quota show`). */
  usage(catalog: readonly Model[], running: readonly RunningReplica[]): Array<QuotaRule & { usedGpus: number; overridden: boolean }> {
    return this.policy(catalog)
      .book(running)
      .usage()
      .map((u) => ({ ...u, overridden: this.overrides.has(quotaKey(u)) }));
  }

  /** The guard for placing `m` now. */
  guard(catalog: readonly Model[], m: Model, fleet: Fleet, running: readonly RunningReplica[]): PlacementGuard {
    const p = this.policy(catalog);
    return p.guard(m, fleet, p.book(running));
  }

  /** Shards reserved for models other than `model` (taken in its fleet). */
  reservedAgainst(model: string, now: number): Array<PlacementDecision['shards'][number]> {
    const out: Array<PlacementDecision['shards'][number]> = [];
    for (const r of this.reservations.values()) {
      if (r.untilMs <= now) this.reservations.delete(r.model);
      else if (r.model !== model) out.push(...r.shards);
    }
    return out;
  }

  /** A preemption or defragmentation for `model` is under way: no second one is planned. */
  pending(model: string, now: number): boolean {
    const r = this.reservations.get(model);
    if (r && r.untilMs <= now) this.reservations.delete(model);
    return this.reservations.has(model) && r!.untilMs > now;
  }

  /** The model got its replica placed (or went away): its reservation ends. */
  settled(model: string): void {
    this.reservations.delete(model);
  }

  /**
   * The room that would let one more replica of `m` be placed: a preemption
   * by class or guarantee first, else moving small replicas out of a large
   * profile's way. Both are worked out on copies; undefined when neither
   * finds a placement.
   */
  plan(catalog: readonly Model[], m: Model, fleet: Fleet, running: readonly RunningReplica[], footprint: ModelFootprint): RoomPlan | undefined {
    const policy = this.policy(catalog);
    const pre = planPreemption({ policy, fleet, running, model: m, footprint });
    if (pre) {
      return {
        kind: 'preemption',
        victims: pre.victims.map((v) => ({
          replica: v.replica.id,
          model: v.replica.model,
          capacityClass: v.replica.capacityClass,
          why: v.why,
          detail: v.detail,
        })),
        decision: pre.decision,
      };
    }
    const models = new Map(catalog.map((x) => [x.name, x]));
    const d = planDefrag({ policy, fleet, running, model: m, models, footprint });
    if (!d) return undefined;
    return {
      kind: 'defragmentation',
      victims: d.moves.map((mv) => ({
        replica: mv.replica.id,
        model: mv.replica.model,
        capacityClass: mv.replica.capacityClass,
        why: 'move' as const,
        detail: `moved to ${mv.to.shards.map((s) => `${s.nodeId} GPUs ${s.gpuIndices.join(',')}`).join(' + ')} to make room for ${m.name} (${classOf(m)})`,
      })),
      decision: d.decision,
    };
  }

  /** Records a plan being executed: its GPUs are held for `model` until it is placed or holdMs passes. */
  begin(model: string, plan: RoomPlan, now: number): void {
    this.reservations.set(model, { model, shards: plan.decision.shards, victims: new Set(plan.victims.map((v) => v.replica)), untilMs: now + this.holdMs });
  }
}

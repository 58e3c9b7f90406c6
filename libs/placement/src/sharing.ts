import { classOf } from './classes';
import { planDefrag } from './defrag';
import type { Fleet } from './fleet';
import type { PlacementGuard } from './place';
import { Policy, type RunningReplica } from './policy';
import { planPreemption } from './preemption';
import type { Explanation, Model, ModelFootprint, PlacementDecision } from './types';

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
  private reservations = new Map<string, Reservation>();
  private policyKey: unknown;
  private current: Policy | undefined;

  constructor(
    private readonly config: () => ConstructorParameters<typeof Policy>[1],
    private readonly holdMs: number,
  ) {}

  /** The policy for this catalog (rebuilt when the catalog or config object changes). */
  policy(catalog: readonly Model[]): Policy {
    const cfg = this.config();
    if (!this.current || this.policyKey !== catalog || this.cfgKey !== cfg) {
      this.current = new Policy(catalog, cfg);
      this.policyKey = catalog;
      this.cfgKey = cfg;
    }
    return this.current;
  }
  private cfgKey: unknown;

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
        victims: pre.victims.map((v) => ({ replica: v.replica.id, model: v.replica.model, capacityClass: v.replica.capacityClass, why: v.why, detail: v.detail })),
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

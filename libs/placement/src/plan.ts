import { classOf } from './classes';
import type { Fleet } from './fleet';
import { addToFootprint, place } from './place';
import type { Policy } from './policy';
import { EMPTY_FOOTPRINT, type Explanation, type Model, type ModelFootprint, type PlacementDecision } from './types';

/** How many more replicas of a model to place. */
export interface Demand {
  readonly model: Model;
  readonly count: number;
  /** Where its replicas already run. */
  readonly footprint?: ModelFootprint;
}

export interface PlanResult {
  /** In the order made; every GPU in them is marked taken in the fleet. */
  readonly decisions: PlacementDecision[];
  /** Models that could not get every replica they asked for, with why (the first failure). */
  readonly unschedulable: Array<{ model: string; missing: number; explanation: Explanation }>;
}

/**
 * Places a batch of demands one replica at a time, in the order given,
 * assigning each decision's GPUs before the next so nothing is given twice.
 * With a policy, every placement is checked against its quotas and facility
 * constraints (usage counted from the decisions made here). Mutates
 * `fleet`'s allocation.
 */
export function planReplicas(fleet: Fleet, demands: readonly Demand[], policy?: Policy): PlanResult {
  const decisions: PlacementDecision[] = [];
  const unschedulable: PlanResult['unschedulable'] = [];
  const book = policy?.book([]);
  for (const d of demands) {
    let fp = d.footprint ?? EMPTY_FOOTPRINT;
    const guard = policy && book ? policy.guard(d.model, fleet, book) : undefined;
    for (let i = 0; i < d.count; i++) {
      const r = place(fleet, d.model, { footprint: fp, guard });
      if (!r.ok) {
        unschedulable.push({ model: d.model.name, missing: d.count - i, explanation: r.explanation });
        break;
      }
      fleet.assign(r.decision);
      book?.add(
        { project: d.model.project, capacityClass: classOf(d.model) },
        r.decision.shards.reduce((s, x) => s + x.gpuIndices.length, 0),
      );
      decisions.push(r.decision);
      fp = addToFootprint(fp, r.decision, fleet);
    }
  }
  return { decisions, unschedulable };
}

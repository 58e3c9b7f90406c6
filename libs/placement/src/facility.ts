import type { Fleet } from './fleet';
import type { GuardReject, PickedShard } from './place';
import type { FacilityLevel, FleetNode, ModelFootprint } from './types';

/** A power budget of one rack or PDU, W. */
export interface PowerBudget {
  readonly level: 'rack' | 'pdu';
  readonly name: string;
  readonly watts: number;
}

/** A facility domain held out of placement (maintenance, a cooling fault). */
export interface HeldDomain {
  readonly level: FacilityLevel;
  readonly name: string;
}

/** The facility half of placement policy (config `facility`, docs/placement.md "Facility"). */
export interface FacilityPolicy {
  readonly held: readonly HeldDomain[];
  readonly budgets: readonly PowerBudget[];
  /** Levels a model's replicas are spread over, as a scored preference. */
  readonly spread: readonly FacilityLevel[];
  /** What a GPU that reports no power limit counts for, W. */
  readonly defaultGpuWatts: number;
}

export const DEFAULT_FACILITY: FacilityPolicy = { held: [], budgets: [], spread: ['rack', 'pdu'], defaultGpuWatts: 700 };

/** Why a node is held out, if it is. */
export function heldCheck(f: FacilityPolicy, n: FleetNode): GuardReject {
  for (const h of f.held) {
    if (n.location?.[h.level] === h.name) return { reason: 'facility-held', detail: `${h.level} ${h.name} is held out of placement` };
  }
  return undefined;
}

/**
 * Power per budget domain. A shard counts each of its GPUs at its power
 * limit. A domain's load is what the shards placed in it have committed, or
 * what its GPUs draw when the agents report more (something outside placement
 * uses the power), whichever is higher; a shard fits when load plus its GPUs
 * stays within the budget.
 */
export class PowerLedger {
  private readonly nodesOf = new Map<string, FleetNode[]>();

  constructor(
    private readonly f: FacilityPolicy,
    private readonly fleet: Fleet,
  ) {
    if (!f.budgets.length) return;
    for (const n of fleet.nodes) {
      for (const b of f.budgets) {
        if (n.location?.[b.level] !== b.name) continue;
        const k = key(b);
        this.nodesOf.set(k, [...(this.nodesOf.get(k) ?? []), n]);
      }
    }
  }

  watts(n: FleetNode, gpuIndex: number): number {
    return n.gpus.find((g) => g.index === gpuIndex)?.powerLimitW ?? this.f.defaultGpuWatts;
  }

  /** A domain's load now, W. */
  load(b: PowerBudget): number {
    let committed = 0;
    let drawn = 0;
    for (const n of this.nodesOf.get(key(b)) ?? []) {
      const used = this.fleet.usedOn(n.id);
      for (const g of n.gpus) {
        if (used.has(g.index)) committed += g.powerLimitW ?? this.f.defaultGpuWatts;
        drawn += g.powerDrawW ?? 0;
      }
    }
    return Math.max(committed, drawn);
  }

  /** Why one more shard (with the shards already picked for its replica) would pass a budget. */
  check(n: FleetNode, gpuIndices: readonly number[], picked: readonly PickedShard[]): GuardReject {
    for (const b of this.f.budgets) {
      if (n.location?.[b.level] !== b.name) continue;
      let add = gpuIndices.reduce((s, i) => s + this.watts(n, i), 0);
      for (const p of picked) {
        const pn = this.fleet.node(p.nodeId);
        if (pn?.location?.[b.level] === b.name) add += p.gpuIndices.reduce((s, i) => s + this.watts(pn, i), 0);
      }
      const load = this.load(b);
      if (load + add > b.watts)
        return { reason: 'power-cap', detail: `${b.level} ${b.name}: ${Math.round(load)} W in use + ${Math.round(add)} W would pass its ${b.watts} W budget` };
    }
    return undefined;
  }
}

const key = (b: PowerBudget) => `${b.level}\u0000${b.name}`;

/**
 * 0..1: the share of the spread levels at which the node's label is new to
 * the model (a node without a label at a level counts as new there).
 */
export function facilitySpread(f: FacilityPolicy, fleet: Fleet, n: FleetNode, fp: ModelFootprint): number {
  if (!f.spread.length || !fp.nodes.size) return 1;
  let fresh = 0;
  for (const level of f.spread) {
    const mine = n.location?.[level];
    let seen = false;
    if (mine !== undefined) for (const id of fp.nodes) if (fleet.node(id)?.location?.[level] === mine) seen = true;
    if (!seen) fresh++;
  }
  return fresh / f.spread.length;
}

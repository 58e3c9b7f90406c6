import { classOf } from './classes';
import { DEFAULT_FACILITY, facilitySpread, heldCheck, PowerLedger, type FacilityPolicy } from './facility';
import type { Fleet } from './fleet';
import type { PlacementGuard } from './place';
import { QuotaBook, type ProjectRef, type QuotaOwner, type QuotaRule } from './quotas';
import type { CapacityClass, FleetNode, Model, Profile } from './types';

/** A replica running (or starting) as policy sees it: whose it is, its class, its GPUs. */
export interface RunningReplica {
  readonly id: string;
  readonly model: string;
  readonly project?: string;
  readonly capacityClass: CapacityClass;
  readonly createdAtMs: number;
  readonly gpuClass: string;
  /** Nodes of the replica (1 = single-node). */
  readonly shards: ReadonlyArray<{ readonly nodeId: string; readonly gpuIndices: readonly number[] }>;
}

export const gpusOf = (r: Pick<RunningReplica, 'shards'>) => r.shards.reduce((s, x) => s + x.gpuIndices.length, 0);
export const ownerOf = (r: Pick<RunningReplica, 'project' | 'capacityClass'>): QuotaOwner => ({ project: r.project, capacityClass: r.capacityClass });
export const modelOwner = (m: Model): QuotaOwner => ({ project: m.project, capacityClass: classOf(m) });

/** Quotas and facility configuration (catalog `projects`/`quotas`, config `facility`). */
export interface PolicyConfig {
  readonly projects?: readonly ProjectRef[];
  readonly quotas?: readonly QuotaRule[];
  readonly facility?: Partial<FacilityPolicy>;
  /** Weight of the policy preference in the node score (facility spread, keeping multi-node pools free). */
  readonly scoreWeight?: number;
}

/**
 * Placement policy beyond the GPU rules (docs/placement.md "Sharing a
 * cluster"): quotas, facility constraints, and the preference that keeps
 * multi-node pools whole. One per catalog; `guard` gives the checks for one
 * model against one fleet and quota book.
 */
export class Policy {
  readonly facility: FacilityPolicy;
  readonly projects: ReadonlyMap<string, ProjectRef>;
  readonly rules: readonly QuotaRule[];
  /** GPU class → the fewest nodes a catalog profile of that class spans (only classes with multi-node profiles). */
  private readonly multiNodeMin = new Map<string, number>();
  /** Per fleet and GPU class: the nodes of fabrics large enough for such a profile. */
  private readonly pools = new WeakMap<Fleet, Map<string, ReadonlySet<string>>>();
  /** Per fleet: its power ledger (it reads the fleet's allocation live, so one serves every placement on it). */
  private readonly ledgers = new WeakMap<Fleet, PowerLedger>();
  private readonly weight: number;

  constructor(catalog: readonly Model[], cfg: PolicyConfig = {}) {
    this.facility = { ...DEFAULT_FACILITY, ...cfg.facility };
    this.projects = new Map((cfg.projects ?? []).map((p) => [p.name, p]));
    this.rules = cfg.quotas ?? [];
    for (const m of catalog)
      for (const p of m.profiles) if (p.nodes > 1) this.multiNodeMin.set(p.gpuClass, Math.min(p.nodes, this.multiNodeMin.get(p.gpuClass) ?? Infinity));
    this.weight = cfg.scoreWeight ?? 3;
  }

  /** Usage of every quota by the replicas given. */
  book(running: readonly RunningReplica[]): QuotaBook {
    const b = new QuotaBook(this.rules, this.projects);
    for (const r of running) b.add(ownerOf(r), gpusOf(r));
    return b;
  }

  /** Is the node in a fabric with enough nodes of `gpuClass` for some multi-node profile of that class? */
  inMultiNodePool(fleet: Fleet, n: FleetNode, gpuClass: string): boolean {
    const min = this.multiNodeMin.get(gpuClass);
    if (min === undefined) return false;
    let byClass = this.pools.get(fleet);
    if (!byClass) this.pools.set(fleet, (byClass = new Map()));
    let set = byClass.get(gpuClass);
    if (!set) {
      const members = new Map<string, string[]>();
      for (const v of fleet.withClass(gpuClass)) for (const f of v.node.fabrics) if (f.known) members.set(f.name, [...(members.get(f.name) ?? []), v.node.id]);
      set = new Set([...members.values()].filter((ids) => ids.length >= min).flat());
      byClass.set(gpuClass, set);
    }
    return set.has(n.id);
  }

  /** The checks and preferences for placing one more replica of `m`. */
  guard(m: Model, fleet: Fleet, book: QuotaBook): PlacementGuard {
    const f = this.facility;
    let power = this.ledgers.get(fleet);
    if (!power && f.budgets.length) this.ledgers.set(fleet, (power = new PowerLedger(f, fleet)));
    const owner = modelOwner(m);
    const level = m.keepWithin;
    return {
      profile: (p: Profile) => {
        const why = book.limitExceeded(owner, p.gpusPerNode * p.nodes);
        return why ? { reason: 'quota-limit', detail: why } : undefined;
      },
      node: f.held.length ? (n) => heldCheck(f, n) : undefined,
      shard: power ? (n, g, picked) => power.check(n, g, picked) : undefined,
      group: level ? { level, of: (n) => n.location?.[level] } : undefined,
      // Half facility spread, half keeping single-node replicas off multi-node pools when there is a choice.
      score: (n, p, fp) => (facilitySpread(f, fleet, n, fp) + (p.nodes === 1 && this.inMultiNodePool(fleet, n, p.gpuClass) ? 0 : 1)) / 2,
      scoreWeight: this.weight,
    };
  }
}

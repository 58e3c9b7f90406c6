import type { Allocation, FleetGpu, FleetNode, PlacementDecision } from './types';

/** A node's GPUs of one class, precomputed once per fleet. */
export interface ClassView {
  readonly node: FleetNode;
  readonly gpus: readonly FleetGpu[];
}

/**
 * The fleet plus which GPUs are taken: the state placement works on. Nodes
 * are kept in id order so every walk over them is deterministic whatever
 * order they were given in. `assign` records a decision's GPUs so a batch of
 * placements never hands one GPU out twice.
 */
export class Fleet {
  readonly nodes: readonly FleetNode[];
  private readonly byId = new Map<string, FleetNode>();
  private readonly used = new Map<string, Set<number>>();
  private readonly byClass = new Map<string, ClassView[]>();
  private readonly nvGroup = new Map<string, Map<number, number>>();

  constructor(nodes: readonly FleetNode[], allocation: Allocation = new Map()) {
    this.nodes = [...nodes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const n of this.nodes) {
      if (this.byId.has(n.id)) throw new Error(`node ${n.id} appears twice in the fleet`);
      this.byId.set(n.id, n);
      const classes = new Map<string, FleetGpu[]>();
      for (const g of n.gpus) {
        let l = classes.get(g.gpuClass);
        if (!l) classes.set(g.gpuClass, (l = []));
        l.push(g);
      }
      for (const [cls, gpus] of classes) {
        let l = this.byClass.get(cls);
        if (!l) this.byClass.set(cls, (l = []));
        l.push({ node: n, gpus });
      }
      const groups = new Map<number, number>();
      n.nvlinkGroups.forEach((grp, gi) => grp.forEach((i) => groups.set(i, gi)));
      this.nvGroup.set(n.id, groups);
    }
    for (const [id, set] of allocation) if (this.byId.has(id)) this.used.set(id, new Set(set));
  }

  node(id: string): FleetNode | undefined {
    return this.byId.get(id);
  }

  /** Nodes having at least one GPU of `gpuClass`, in id order. */
  withClass(gpuClass: string): readonly ClassView[] {
    return this.byClass.get(gpuClass) ?? [];
  }

  /** Every GPU class in the fleet with its GPU count, sorted by name. */
  classes(): Array<[string, number]> {
    return [...this.byClass.entries()]
      .map(([c, v]) => [c, v.reduce((s, x) => s + x.gpus.length, 0)] as [string, number])
      .sort((a, b) => (a[0] < b[0] ? -1 : 1));
  }

  usedOn(nodeId: string): ReadonlySet<number> {
    return this.used.get(nodeId) ?? EMPTY;
  }

  /** The NVLink group index of a GPU, or -1. */
  nvlinkGroupOf(nodeId: string, gpu: number): number {
    return this.nvGroup.get(nodeId)?.get(gpu) ?? -1;
  }

  /** Marks a decision's GPUs as taken; throws if one already is (a placement bug, never expected). */
  assign(d: PlacementDecision): void {
    this.take(d.shards);
  }

  /** Marks shards' GPUs as taken (a decision's, or a running replica's put back on a copy). */
  take(shards: ReadonlyArray<{ nodeId: string; gpuIndices: readonly number[] }>): void {
    for (const s of shards) {
      const set = this.used.get(s.nodeId) ?? new Set<number>();
      for (const g of s.gpuIndices) {
        if (set.has(g)) throw new Error(`GPU ${g} on ${s.nodeId} assigned twice`);
      }
      for (const g of s.gpuIndices) set.add(g);
      this.used.set(s.nodeId, set);
    }
  }

  /** An independent copy with the same nodes and allocation (what preemption and defragmentation try moves on). */
  clone(): Fleet {
    return new Fleet(this.nodes, this.used);
  }

  /** Returns GPUs to the free set. */
  release(shards: ReadonlyArray<{ nodeId: string; gpuIndices: readonly number[] }>): void {
    for (const s of shards) for (const g of s.gpuIndices) this.used.get(s.nodeId)?.delete(g);
  }
}

const EMPTY: ReadonlySet<number> = new Set();

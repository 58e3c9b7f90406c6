import { classOf, classRank } from './classes';
import type { Fleet } from './fleet';
import { place } from './place';
import { gpusOf, type Policy, type RunningReplica } from './policy';
import { EMPTY_FOOTPRINT, type Model, type ModelFootprint, type PlacementDecision, type Profile } from './types';

/** One small replica moved out of the way: drained, and placed again at `to`. */
export interface DefragMove {
  readonly replica: RunningReplica;
  readonly to: PlacementDecision;
}

/** Room made for a large profile by moving small replicas, tried on a copy of the fleet. */
export interface DefragPlan {
  readonly model: string;
  readonly profile: string;
  readonly moves: readonly DefragMove[];
  /** Where the large replica goes once the moved replicas are gone. */
  readonly decision: PlacementDecision;
}

export interface DefragInput {
  readonly policy: Policy;
  readonly fleet: Fleet;
  readonly running: readonly RunningReplica[];
  readonly model: Model;
  /** Models by name: where a moved replica is placed again. */
  readonly models: ReadonlyMap<string, Model>;
  readonly footprint?: ModelFootprint;
  /** Moves in one plan at most (default 8). */
  readonly maxMoves?: number;
}

/** Is this a large profile: several nodes, or more than one GPU a node? */
const isLarge = (p: Profile) => p.nodes > 1 || p.gpusPerNode > 1;

/**
 * Defragmentation (docs/placement.md "Room for the large"): when a large
 * profile is blocked only by smaller single-node replicas of its class or a
 * lower one, the cheapest set of nodes to clear (fewest moves) in one fabric
 * (or anywhere, for one node); tried on a copy: the blockers are taken off,
 * the large replica placed, then every blocker placed again elsewhere. Only a
 * plan whose every step placed is returned. Nothing is changed in `fleet`.
 */
export function planDefrag(inp: DefragInput): DefragPlan | undefined {
  const { model: m } = inp;
  const rank = classRank(classOf(m));
  for (const p of m.profiles) {
    if (!isLarge(p)) continue;
    const movable = inp.running.filter(
      (v) =>
        v.model !== m.name && v.shards.length === 1 && v.gpuClass === p.gpuClass && gpusOf(v) < p.gpusPerNode * p.nodes && classRank(v.capacityClass) <= rank,
    );
    if (!movable.length) continue;
    const byNode = new Map<string, RunningReplica[]>();
    for (const v of movable) byNode.set(v.shards[0].nodeId, [...(byNode.get(v.shards[0].nodeId) ?? []), v]);
    for (const nodes of candidatePools(inp.fleet, p)) {
      const plan = tryPool(inp, p, nodes, byNode);
      if (plan) return plan;
    }
  }
  return undefined;
}

/** Node-id sets a profile's replica could use: each fabric's nodes for multi-node, every node of the class for one node. */
function candidatePools(fleet: Fleet, p: Profile): string[][] {
  const views = fleet.withClass(p.gpuClass).filter((v) => v.node.condition === 'ready' && !v.node.cordoned);
  if (p.nodes === 1) return [views.map((v) => v.node.id)];
  const fabrics = new Map<string, string[]>();
  for (const v of views) for (const f of v.node.fabrics) if (f.known) fabrics.set(f.name, [...(fabrics.get(f.name) ?? []), v.node.id]);
  return [...fabrics.keys()].sort().map((f) => fabrics.get(f)!);
}

function tryPool(inp: DefragInput, p: Profile, nodeIds: readonly string[], byNode: ReadonlyMap<string, RunningReplica[]>): DefragPlan | undefined {
  const { fleet, policy } = inp;
  // Per node: the blockers to move (largest first: the fewest) so gpusPerNode healthy GPUs are free.
  const costs: Array<{ id: string; moves: RunningReplica[] }> = [];
  for (const id of nodeIds) {
    const n = fleet.node(id)!;
    const used = fleet.usedOn(id);
    const healthy = n.gpus.filter((g) => g.gpuClass === p.gpuClass && g.health !== 'failed');
    let free = healthy.filter((g) => !used.has(g.index)).length;
    const moves: RunningReplica[] = [];
    for (const v of [...(byNode.get(id) ?? [])].sort((a, b) => gpusOf(b) - gpusOf(a) || b.createdAtMs - a.createdAtMs)) {
      if (free >= p.gpusPerNode) break;
      moves.push(v);
      free += gpusOf(v);
    }
    if (free >= p.gpusPerNode) costs.push({ id, moves });
  }
  if (costs.length < p.nodes) return undefined;
  costs.sort((a, b) => a.moves.length - b.moves.length || (a.id < b.id ? -1 : 1));
  const chosen = costs.slice(0, p.nodes);
  const blockers = chosen.flatMap((c) => c.moves);
  if (!blockers.length || blockers.length > (inp.maxMoves ?? 8)) return undefined;
  const copy = fleet.clone();
  const running = inp.running.filter((r) => !blockers.includes(r));
  for (const b of blockers) copy.release(b.shards);
  const book = policy.book(running);
  const big = place(copy, inp.model, { profile: p.name, footprint: inp.footprint ?? EMPTY_FOOTPRINT, guard: policy.guard(inp.model, copy, book) });
  if (!big.ok) return undefined;
  copy.assign(big.decision);
  book.add({ project: inp.model.project, capacityClass: classOf(inp.model) }, gpusOf(big.decision));
  const moves: DefragMove[] = [];
  for (const b of blockers) {
    const bm = inp.models.get(b.model);
    if (!bm) return undefined;
    const again = place(copy, bm, { guard: policy.guard(bm, copy, book) });
    if (!again.ok) return undefined;
    copy.assign(again.decision);
    book.add({ project: bm.project, capacityClass: classOf(bm) }, gpusOf(again.decision));
    moves.push({ replica: b, to: again.decision });
  }
  return { model: inp.model.name, profile: p.name, moves, decision: big.decision };
}

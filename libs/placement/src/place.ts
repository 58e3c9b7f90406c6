import { validateOnGpus } from './engines';
import type { ClassView, Fleet } from './fleet';
import {
  EMPTY_FOOTPRINT,
  type Explanation,
  type FleetGpu,
  type FleetNode,
  type Model,
  type ModelFootprint,
  type NodeCandidate,
  type PlacementDecision,
  type PoolCandidate,
  type Profile,
  type ProfileExplanation,
  type RejectReason,
  type ShardPlacement,
} from './types';

/**
 * Soft-score weights (docs/placement.md, "Placement"). Spreading a model over nodes and fabrics
 * (failure domains) outranks bin packing, which outranks NUMA/NVLink
 * affinity; profile priority is stronger than all of them because profiles
 * are tried one after another, highest first.
 */
export const SCORE_WEIGHTS = { spreadNode: 4, spreadFabric: 2, packing: 2, affinity: 1 } as const;
const WEIGHT_SUM = SCORE_WEIGHTS.spreadNode + SCORE_WEIGHTS.spreadFabric + SCORE_WEIGHTS.packing + SCORE_WEIGHTS.affinity;

export interface ExplainOptions {
  /** Where the model's replicas already run (spread). */
  readonly footprint?: ModelFootprint;
  /** The model is at its maximum replica count: every profile is rejected with at-max-replicas. */
  readonly atMax?: boolean;
  /** Only this profile. */
  readonly profile?: string;
  /** Evaluate every profile even after one is schedulable (what `ctl explain-placement` shows). */
  readonly all?: boolean;
  /** Quotas, facility constraints and preferences (libs/placement guard.ts); none = the plain rules. */
  readonly guard?: PlacementGuard;
}

/** A hard constraint's verdict: undefined when it holds. */
export type GuardReject = { readonly reason: RejectReason; readonly detail: string } | undefined;

/** One shard already picked for the replica being placed. */
export interface PickedShard {
  readonly nodeId: string;
  readonly gpuIndices: readonly number[];
}

/**
 * Policy beyond the GPU rules, for one model (built by `Policy.guard`):
 * a profile-level check (quotas), node- and shard-level checks (held facility
 * domains, power caps), the `keep_within` grouping of multi-node pools, and a
 * soft preference added to the node score.
 */
export interface PlacementGuard {
  profile?(p: Profile): GuardReject;
  node?(n: FleetNode): GuardReject;
  /** The GPUs one shard would take, given the shards already picked for the same replica. */
  shard?(n: FleetNode, gpuIndices: readonly number[], picked: readonly PickedShard[]): GuardReject;
  /** `keep_within`: the nodes of one replica must share `of(node)`; undefined = the node has no such label. */
  readonly group?: { readonly level: string; of(n: FleetNode): string | undefined };
  /** A preference in 0..1 added to the node score with `scoreWeight`. */
  score?(n: FleetNode, p: Profile, fp: ModelFootprint): number;
  readonly scoreWeight?: number;
}

/** The failure domain key of a single-node replica on this node. */
export function domainOf(n: FleetNode): string {
  const f = n.fabrics.find((x) => x.known);
  return f ? f.name : `node:${n.id}`;
}

interface GpuPick {
  readonly indices: number[];
  /** 0..1: NVLink-contained, NUMA-aligned. */
  readonly affinity: number;
}

interface NodeEval {
  readonly candidate: NodeCandidate;
  readonly pick?: GpuPick;
  readonly hcas: readonly string[];
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Chooses `k` of the free GPUs: inside one NVLink group when one has room
 * (the tightest such group, to keep larger groups whole), preferring healthy
 * over degraded and GPUs on `numas` (the NUMA nodes of the fabric's HCAs) —
 * or, with no HCA to be near, one NUMA node. Ties go to lower indices.
 */
function pickGpus(fleet: Fleet, nodeId: string, free: readonly FleetGpu[], k: number, numas: ReadonlySet<number>, hasGroups: boolean): GpuPick {
  const numaCount = new Map<number, number>();
  for (const g of free) numaCount.set(g.numaNode, (numaCount.get(g.numaNode) ?? 0) + 1);
  // With no HCA to be near: the NUMA node that fits k most tightly (best fit), else the fullest.
  let target = -1;
  for (const [nn, c] of [...numaCount].sort((a, b) => a[0] - b[0])) {
    if (nn < 0) continue;
    const t = target < 0 ? undefined : numaCount.get(target)!;
    if (t === undefined || (c >= k && (t < k || c < t)) || (t < k && c > t)) target = nn;
  }
  const prefers = (g: FleetGpu) => (numas.size ? (numas.has(g.numaNode) ? 1 : 0) : g.numaNode === target ? 1 : 0);
  const order = (a: FleetGpu, b: FleetGpu) => Number(a.health === 'degraded') - Number(b.health === 'degraded') || prefers(b) - prefers(a) || a.index - b.index;
  const numaScore = (gs: readonly FleetGpu[]) => {
    if (numas.size) return gs.filter((g) => numas.has(g.numaNode)).length / gs.length;
    if (gs.some((g) => g.numaNode < 0)) return 0.5;
    return gs.every((g) => g.numaNode === gs[0].numaNode) ? 1 : 0;
  };
  if (hasGroups) {
    const groups = new Map<number, FleetGpu[]>();
    for (const g of free) {
      const gi = fleet.nvlinkGroupOf(nodeId, g.index);
      if (gi < 0) continue;
      let l = groups.get(gi);
      if (!l) groups.set(gi, (l = []));
      l.push(g);
    }
    let best: { gs: FleetGpu[]; score: number; left: number; first: number } | undefined;
    for (const gs of groups.values()) {
      if (gs.length < k) continue;
      const chosen = [...gs].sort(order).slice(0, k);
      const score = numaScore(chosen) - chosen.filter((g) => g.health === 'degraded').length / (k + 1);
      const left = gs.length - k;
      const first = Math.min(...chosen.map((g) => g.index));
      if (!best || score > best.score || (score === best.score && (left < best.left || (left === best.left && first < best.first))))
        best = { gs: chosen, score, left, first };
    }
    if (best) return { indices: best.gs.map((g) => g.index).sort((a, b) => a - b), affinity: (1 + numaScore(best.gs)) / 2 };
  }
  const chosen = [...free].sort(order).slice(0, k);
  const nv = hasGroups ? (k === 1 ? 1 : 0) : 0.5;
  return { indices: chosen.map((g) => g.index).sort((a, b) => a - b), affinity: (nv + numaScore(chosen)) / 2 };
}

/** The hard constraints (docs/placement.md, "Placement") for one node, in a fixed order; the first failure is the reason. */
function evalNode(fleet: Fleet, view: ClassView, p: Profile, fabric: string | undefined, fp: ModelFootprint, guard?: PlacementGuard): NodeEval {
  const n = view.node;
  const reject = (reason: RejectReason, detail: string, freeGpus = 0): NodeEval => ({
    candidate: { nodeId: n.id, reason, detail, freeGpus, score: 0 },
    hcas: [],
  });
  const used = fleet.usedOn(n.id);
  const free = view.gpus.filter((g) => g.health !== 'failed' && !used.has(g.index));
  if (n.condition !== 'ready') return reject('node-not-ready', `node is ${n.condition}`, free.length);
  if (n.cordoned) return reject('node-cordoned', 'node is cordoned', free.length);
  const held = guard?.node?.(n);
  if (held) return reject(held.reason, held.detail, free.length);
  if (n.engines !== 'any' && !n.engines.includes(p.engine)) {
    return reject('engine-missing', `engine ${p.engine} is not installed (has ${n.engines.join(', ') || 'none'})`, free.length);
  }
  const invalid = validateOnGpus(p, view.gpus);
  if (invalid) return reject('engine-validation', invalid, free.length);
  let hcas: string[] = [];
  const numas = new Set<number>();
  if (fabric !== undefined) {
    const att = n.fabrics.find((f) => f.name === fabric && f.known);
    if (!att) return reject('no-fabric', n.fabrics.length ? `not attached to fabric ${fabric}` : 'node has no InfiniBand fabric', free.length);
    const active = n.hcas.filter((h) => h.active && att.hcas.includes(h.name));
    if (!active.length) return reject('hca-not-active', `no ACTIVE HCA on fabric ${fabric} (${att.hcas.join(', ') || 'none listed'})`, free.length);
    for (const h of active) if (h.numaNode >= 0) numas.add(h.numaNode);
    hcas = active.map((h) => h.name);
  }
  if (free.length < p.gpusPerNode) {
    const failed = view.gpus.filter((g) => g.health === 'failed').length;
    const inUse = view.gpus.filter((g) => used.has(g.index)).length;
    return reject(
      'insufficient-gpus',
      `needs ${p.gpusPerNode} free ${p.gpuClass} GPUs, has ${free.length} (${inUse} in use${failed ? `, ${failed} failed` : ''})`,
      free.length,
    );
  }
  const pick = pickGpus(fleet, n.id, free, p.gpusPerNode, numas, n.nvlinkGroups.length > 0);
  const capped = guard?.shard?.(n, pick.indices, []);
  if (capped) return reject(capped.reason, capped.detail, free.length);
  if (numas.size) {
    const gpuNumas = new Set(pick.indices.map((i) => view.gpus.find((g) => g.index === i)!.numaNode));
    hcas.sort((a, b) => {
      const na = gpuNumas.has(n.hcas.find((h) => h.name === a)!.numaNode) ? 0 : 1;
      const nb = gpuNumas.has(n.hcas.find((h) => h.name === b)!.numaNode) ? 0 : 1;
      return na - nb || (a < b ? -1 : a > b ? 1 : 0);
    });
  }
  const packing = (used.size + p.gpusPerNode) / n.gpus.length;
  const spreadNode = fp.nodes.has(n.id) ? 0 : 1;
  const spreadFabric = fabric !== undefined ? 1 : fp.fabrics.has(domainOf(n)) ? 0 : 1;
  const base =
    SCORE_WEIGHTS.spreadNode * spreadNode +
    SCORE_WEIGHTS.spreadFabric * spreadFabric +
    SCORE_WEIGHTS.packing * packing +
    SCORE_WEIGHTS.affinity * pick.affinity;
  const gw = guard?.score ? (guard.scoreWeight ?? 1) : 0;
  const score = r6((base + (gw ? gw * guard!.score!(n, p, fp) : 0)) / (WEIGHT_SUM + gw));
  return { candidate: { nodeId: n.id, reason: 'none', detail: `GPUs ${pick.indices.join(',')}`, freeGpus: free.length, score }, pick, hcas };
}

/** Eligible first (best score, then id), then rejected (by id). */
function sortEvals(evals: NodeEval[]): NodeEval[] {
  return evals.sort((a, b) => {
    const ea = a.candidate.reason === 'none' ? 0 : 1;
    const eb = b.candidate.reason === 'none' ? 0 : 1;
    if (ea !== eb) return ea - eb;
    if (ea === 0 && a.candidate.score !== b.candidate.score) return b.candidate.score - a.candidate.score;
    return a.candidate.nodeId < b.candidate.nodeId ? -1 : a.candidate.nodeId > b.candidate.nodeId ? 1 : 0;
  });
}

interface PoolResult {
  readonly pool: PoolCandidate;
  readonly chosen?: NodeEval[];
  readonly score: number;
}

function evalSingleNodePool(fleet: Fleet, p: Profile, fp: ModelFootprint, guard?: PlacementGuard): PoolResult {
  const evals = sortEvals(fleet.withClass(p.gpuClass).map((v) => evalNode(fleet, v, p, undefined, fp, guard)));
  const ok = evals.filter((e) => e.candidate.reason === 'none');
  const pool: PoolCandidate = {
    pool: p.gpuClass,
    gpuClass: p.gpuClass,
    fabric: '',
    reason: ok.length ? 'none' : unanimous(evals),
    detail: ok.length ? `${ok.length} eligible node(s) of ${evals.length}` : `no eligible node among ${evals.length} with ${p.gpuClass} GPUs`,
    nodes: evals.map((e) => e.candidate),
  };
  return { pool, chosen: ok.length ? [ok[0]] : undefined, score: ok.length ? ok[0].candidate.score : 0 };
}

/** The reason every node shares, or not-enough-nodes when they differ. */
function unanimous(evals: readonly NodeEval[]): RejectReason {
  const r = evals[0]?.candidate.reason;
  return r !== undefined && evals.every((e) => e.candidate.reason === r) ? r : 'not-enough-nodes';
}

function evalMultiNodePools(fleet: Fleet, p: Profile, fp: ModelFootprint, guard?: PlacementGuard): PoolResult[] {
  const views = fleet.withClass(p.gpuClass);
  const fabrics = new Set<string>();
  const unattached: ClassView[] = [];
  for (const v of views) {
    const known = v.node.fabrics.filter((f) => f.known);
    if (!known.length) unattached.push(v);
    for (const f of known) fabrics.add(f.name);
  }
  const out: PoolResult[] = [];
  for (const fabric of [...fabrics].sort()) {
    const members = views.filter((v) => v.node.fabrics.some((f) => f.known && f.name === fabric));
    // keep_within: one pool per label of the level inside the fabric; nodes without the label join none.
    const groups = new Map<string, ClassView[]>();
    const unlabelled: ClassView[] = [];
    for (const v of members) {
      const key = guard?.group ? guard.group.of(v.node) : '';
      if (key === undefined) unlabelled.push(v);
      else groups.set(key, [...(groups.get(key) ?? []), v]);
    }
    for (const [key, group] of [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      out.push(evalFabricGroup(fleet, p, fp, fabric, key ? `${guard!.group!.level}=${key}` : '', group, guard));
    }
    if (unlabelled.length) {
      const level = guard!.group!.level;
      out.push({
        pool: {
          pool: `${p.gpuClass}/${fabric}[${level}=?]`,
          gpuClass: p.gpuClass,
          fabric,
          reason: 'keep-within',
          detail: `${unlabelled.length} node(s) have no ${level} label; keep_within: ${level} needs one`,
          nodes: unlabelled.map((v) => ({ nodeId: v.node.id, reason: 'keep-within' as const, detail: `no ${level} label`, freeGpus: 0, score: 0 })),
        },
        score: 0,
      });
    }
  }
  out.sort((a, b) => (a.chosen ? 0 : 1) - (b.chosen ? 0 : 1) || b.score - a.score || (a.pool.pool < b.pool.pool ? -1 : 1));
  if (unattached.length) {
    out.push({
      pool: {
        pool: `${p.gpuClass}/-`,
        gpuClass: p.gpuClass,
        fabric: '',
        reason: 'no-fabric',
        detail: `${unattached.length} node(s) with ${p.gpuClass} GPUs and no known fabric never join a multi-node pool`,
        nodes: unattached.map((v) => ({
          nodeId: v.node.id,
          reason: 'no-fabric' as const,
          detail: v.node.fabrics.length ? 'fabric unknown' : 'node has no InfiniBand fabric',
          freeGpus: 0,
          score: 0,
        })),
      },
      score: 0,
    });
  }
  return out;
}

/** One fabric's pool (or one keep_within group of it): the best `p.nodes` eligible nodes whose shards pass the guard together. */
function evalFabricGroup(
  fleet: Fleet,
  p: Profile,
  fp: ModelFootprint,
  fabric: string,
  group: string,
  members: readonly ClassView[],
  guard?: PlacementGuard,
): PoolResult {
  const evals = sortEvals(members.map((v) => evalNode(fleet, v, p, fabric, fp, guard)));
  const ok = evals.filter((e) => e.candidate.reason === 'none');
  let chosen: NodeEval[] = [];
  let capped = '';
  for (const e of ok) {
    if (chosen.length >= p.nodes) break;
    const picked = chosen.map((c) => ({ nodeId: c.candidate.nodeId, gpuIndices: c.pick!.indices }));
    const r = picked.length ? guard?.shard?.(fleet.node(e.candidate.nodeId)!, e.pick!.indices, picked) : undefined;
    if (r) capped ||= r.detail;
    else chosen.push(e);
  }
  const enough = chosen.length >= p.nodes;
  const spread = fp.fabrics.has(fabric) ? 0 : 1;
  const score = enough
    ? r6((SCORE_WEIGHTS.spreadFabric * spread + chosen.reduce((s, e) => s + e.candidate.score, 0) / chosen.length) / (SCORE_WEIGHTS.spreadFabric + 1))
    : 0;
  if (!enough) chosen = [];
  return {
    pool: {
      pool: group ? `${p.gpuClass}/${fabric}[${group}]` : `${p.gpuClass}/${fabric}`,
      gpuClass: p.gpuClass,
      fabric,
      reason: enough ? 'none' : capped && ok.length >= p.nodes ? 'power-cap' : guard?.group ? 'keep-within' : 'not-enough-nodes',
      detail: `${ok.length} eligible node(s) of ${evals.length}${group ? ` in ${group}` : ''}, profile needs ${p.nodes}${capped && !enough ? `; together: ${capped}` : ''}`,
      nodes: evals.map((e) => e.candidate),
    },
    chosen: enough ? chosen : undefined,
    score,
  };
}

function decisionOf(model: string, p: Profile, fabric: string, chosen: readonly NodeEval[]): PlacementDecision {
  const shards: ShardPlacement[] = chosen.map((e, rank) => ({ nodeId: e.candidate.nodeId, rank, gpuIndices: e.pick!.indices, hcas: e.hcas }));
  return { model, profile: p, fabric, gpuClass: p.gpuClass, pool: fabric ? `${p.gpuClass}/${fabric}` : p.gpuClass, shards };
}

/**
 * Placement (docs/placement.md, "Placement"): tries the model's profiles highest priority first and, within
 * each, its pools best first; the first pool with room gives the decision.
 * Every profile, pool and node considered comes back with the reason it was
 * (not) used. Deterministic: the same fleet, allocation and footprint give
 * the same answer.
 */
export function explain(fleet: Fleet, model: Model, opts: ExplainOptions = {}): Explanation {
  const fp = opts.footprint ?? EMPTY_FOOTPRINT;
  const profiles: ProfileExplanation[] = [];
  let decision: PlacementDecision | undefined;
  for (const p of model.profiles) {
    if (opts.profile !== undefined && p.name !== opts.profile) continue;
    if (decision && !opts.all) break;
    const quota = opts.guard?.profile?.(p);
    if (quota) {
      profiles.push({
        profile: p.name,
        priority: p.priority,
        gpuClass: p.gpuClass,
        nodes: p.nodes,
        gpusPerNode: p.gpusPerNode,
        pools: [],
        reason: quota.reason,
        detail: quota.detail,
      });
      continue;
    }
    const pools = p.nodes > 1 ? evalMultiNodePools(fleet, p, fp, opts.guard) : [evalSingleNodePool(fleet, p, fp, opts.guard)];
    let reason: RejectReason = 'none';
    let detail = '';
    if (!fleet.withClass(p.gpuClass).length) {
      const have =
        fleet
          .classes()
          .map(([c, n]) => `${c}×${n}`)
          .join(', ') || 'none';
      pools.splice(0, pools.length, {
        pool: {
          pool: p.gpuClass,
          gpuClass: p.gpuClass,
          fabric: '',
          reason: 'gpu-class',
          detail: `no node has ${p.gpuClass} GPUs (fleet has: ${have})`,
          nodes: [],
        },
        score: 0,
      });
      reason = 'gpu-class';
      detail = `no ${p.gpuClass} GPUs in the fleet`;
    }
    const best = pools.find((x) => x.chosen);
    if (opts.atMax) {
      reason = 'at-max-replicas';
      detail = `the model already has ${fp.replicas} replica(s), its maximum`;
    } else if (best && !decision) {
      decision = decisionOf(model.name, p, best.pool.fabric, best.chosen!);
    } else if (!best && reason === 'none') {
      const common = pools.every((x) => x.pool.reason === pools[0].pool.reason) ? pools[0].pool.reason : undefined;
      reason = p.nodes > 1 ? (common === 'power-cap' ? common : opts.guard?.group ? 'keep-within' : 'not-enough-nodes') : pools[0].pool.reason;
      detail =
        p.nodes > 1
          ? `no fabric has ${p.nodes} eligible ${p.gpuClass} nodes${opts.guard?.group ? ` within one ${opts.guard.group.level}` : ''}`
          : pools[0].pool.detail;
    }
    profiles.push({
      profile: p.name,
      priority: p.priority,
      gpuClass: p.gpuClass,
      nodes: p.nodes,
      gpusPerNode: p.gpusPerNode,
      pools: pools.map((x) => x.pool),
      reason,
      detail,
    });
  }
  return { model: model.name, schedulable: decision !== undefined, decision, profiles };
}

/** The placement for one more replica of `model`, or the explanation of why there is none. */
export function place(
  fleet: Fleet,
  model: Model,
  opts: Omit<ExplainOptions, 'all'> = {},
): { ok: true; decision: PlacementDecision } | { ok: false; explanation: Explanation } {
  const e = explain(fleet, model, { ...opts, all: false });
  return e.decision ? { ok: true, decision: e.decision } : { ok: false, explanation: { ...e } };
}

/** A footprint grown by one decision (the next replica of the same model spreads away from it). */
export function addToFootprint(fp: ModelFootprint, d: PlacementDecision, fleet: Fleet): ModelFootprint {
  const nodes = new Set(fp.nodes);
  const fabrics = new Set(fp.fabrics);
  for (const s of d.shards) nodes.add(s.nodeId);
  if (d.fabric) fabrics.add(d.fabric);
  else for (const s of d.shards) fabrics.add(domainOf(fleet.node(s.nodeId)!));
  return { replicas: fp.replicas + 1, nodes, fabrics };
}

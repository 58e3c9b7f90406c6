import { classOf, classRank } from './classes';
import type { Fleet } from './fleet';
import { place } from './place';
import { gpusOf, modelOwner, ownerOf, type Policy, type RunningReplica } from './policy';
import type { QuotaBook } from './quotas';
import { EMPTY_FOOTPRINT, type Model, type ModelFootprint, type PlacementDecision } from './types';

/** Why a replica may be preempted for another model. */
export interface VictimReason {
  readonly why: 'class' | 'guarantee';
  readonly detail: string;
}

export interface Victim extends VictimReason {
  readonly replica: RunningReplica;
}

/** A preemption tried on a copy of the fleet: the victims and where the new replica then goes. */
export interface PreemptionPlan {
  readonly model: string;
  readonly victims: readonly Victim[];
  /** The placement the dry run made once the victims were gone. */
  readonly decision: PlacementDecision;
}

/**
 * May `v` be preempted to place `m` (docs/placement.md "Capacity classes",
 * "Quotas")? Never a higher class, never the model's own replicas, never
 * GPUs inside another project's guarantee; a lower class always otherwise; the
 * same class only to give `m`'s project GPUs inside its guarantee back from a
 * borrower.
 */
export function mayPreempt(book: QuotaBook, m: Model, gpus: number, v: RunningReplica): VictimReason | undefined {
  if (v.model === m.name) return undefined;
  const mine = classOf(m);
  const diff = classRank(mine) - classRank(v.capacityClass);
  if (diff < 0) return undefined;
  const sameProject = v.project !== undefined && v.project === m.project;
  if (!sameProject && book.guaranteeCut(ownerOf(v), gpusOf(v))) return undefined;
  if (diff > 0) return { why: 'class', detail: `${v.capacityClass} replica of ${v.model} yields to ${mine} ${m.name}` };
  if (sameProject) return undefined;
  const claim = book.guaranteeClaim(modelOwner(m), gpus);
  return claim ? { why: 'guarantee', detail: `${claim}; ${v.model} (${v.project ?? 'no project'}) borrows` } : undefined;
}

export interface PreemptionInput {
  readonly policy: Policy;
  readonly fleet: Fleet;
  readonly running: readonly RunningReplica[];
  readonly model: Model;
  readonly footprint?: ModelFootprint;
  /** Victims tried at most (default 16). */
  readonly maxVictims?: number;
}

/**
 * The preemption that lets one more replica of `model` be placed, worked out
 * on a copy of the fleet and of the quota book: candidates lowest class
 * first, newest first within a class, removed one at a time until the model
 * places; then every victim not needed for that placement is put back (the
 * fewest). Undefined when no allowed set of victims makes room. Nothing is
 * changed in `fleet`.
 */
export function planPreemption(inp: PreemptionInput): PreemptionPlan | undefined {
  const { policy, model: m } = inp;
  const classes = new Set(m.profiles.map((p) => p.gpuClass));
  const minGpus = Math.min(...m.profiles.map((p) => p.gpusPerNode * p.nodes));
  const book0 = policy.book(inp.running);
  const candidates = inp.running
    .filter((v) => classes.has(v.gpuClass) && mayPreempt(book0, m, minGpus, v))
    .sort((a, b) => classRank(a.capacityClass) - classRank(b.capacityClass) || b.createdAtMs - a.createdAtMs || (a.id < b.id ? 1 : -1))
    .slice(0, inp.maxVictims ?? 16);
  if (!candidates.length) return undefined;
  const fp = inp.footprint ?? EMPTY_FOOTPRINT;
  const copy = inp.fleet.clone();
  const book = book0.clone();
  const tryPlace = () => place(copy, m, { footprint: fp, guard: policy.guard(m, copy, book) });
  const removed: RunningReplica[] = [];
  let found: PlacementDecision | undefined;
  for (const v of candidates) {
    // Taking earlier victims may have brought v's project down to its guarantee: then v stays.
    if (!mayPreempt(book, m, minGpus, v)) continue;
    copy.release(v.shards);
    book.remove(ownerOf(v), gpusOf(v));
    removed.push(v);
    const r = tryPlace();
    if (r.ok) {
      found = r.decision;
      break;
    }
  }
  if (!found) return undefined;
  // The fewest: put back every victim the placement does not need.
  const kept: RunningReplica[] = [];
  for (const v of removed.slice(0, -1)) {
    copy.take(v.shards);
    book.add(ownerOf(v), gpusOf(v));
    const r = tryPlace();
    if (r.ok) {
      found = r.decision;
      continue;
    }
    copy.release(v.shards);
    book.remove(ownerOf(v), gpusOf(v));
    kept.push(v);
  }
  kept.push(removed[removed.length - 1]);
  const final = tryPlace();
  if (!final.ok) return undefined;
  // A guarantee claim must hold for the GPUs actually placed.
  const gpus = final.decision.shards.reduce((s, x) => s + x.gpuIndices.length, 0);
  const victims: Victim[] = [];
  const after = book0.clone();
  for (const v of kept) {
    const why = mayPreempt(after, m, gpus, v);
    if (!why) return undefined;
    after.remove(ownerOf(v), gpusOf(v));
    victims.push({ replica: v, ...why });
  }
  return { model: m.name, victims, decision: final.decision };
}

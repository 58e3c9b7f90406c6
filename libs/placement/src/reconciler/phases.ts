import { byClassDescending } from '../classes';
import type { Fleet } from '../fleet';
import { addToFootprint, place } from '../place';
import { EMPTY_FOOTPRINT, type Model, type ModelFootprint } from '../types';
import { adoptReplica, launchReplica } from './launch';
import type { ShardRec } from './records';
import type { ReconcilerState } from './state';
import { TERMINAL_SHARD_STATES, type FleetView, type ReconcilerNode, type ReplicaStateName, type ShardReport, type ShardStateName } from './types';

/** One pass's inputs, fixed when it starts, and its counts. */
export interface Pass {
  readonly now: number;
  readonly token: number;
  readonly view: FleetView;
  readonly nodes: Map<string, ReconcilerNode>;
  readonly reports: Map<string, ShardReport>;
  readonly models: Map<string, Model>;
  readonly res: {
    placed: number;
    failed: number;
    drained: number;
    stopped: number;
    orphansStopped: number;
    orphansDeferred: number;
    adopted: number;
    unschedulable: string[];
  };
}

/** Phase 1: claims reported shards for known replicas, adopts whole replicas, queues orphan stops. */
export function claimShards(st: ReconcilerState, pass: Pass): void {
  const { now, token, view, nodes, models, res } = pass;
  // Claim: shards of known replicas; adopt whole replicas from specs; the rest are orphans.
  // A Lost node's shards are neither adopted nor orphans: inventory still lists them, but they
  // count as failed (adopting them again would fail the replica again, every pass, and hold the
  // model in backoff forever); if the node comes back, its agent reports what really runs.
  const claimed = new Set<string>();
  for (const r of st.replicas.values()) for (const s of r.shards) claimed.add(s.spec.shardId);
  for (const rep of view.shards) if (nodes.get(rep.nodeId)?.condition === 'lost' || !nodes.has(rep.nodeId)) claimed.add(rep.shardId);
  const adoptable = new Map<string, ShardReport[]>();
  for (const rep of view.shards) {
    if (claimed.has(rep.shardId) || TERMINAL_SHARD_STATES.has(rep.state)) continue;
    const m = rep.spec ? models.get(rep.spec.model) : undefined;
    const p = m?.profiles.find((x) => x.name === rep.spec!.profile);
    if (rep.spec && p && !st.replicas.has(rep.replicaId)) {
      const l = adoptable.get(rep.replicaId) ?? [];
      l.push(rep);
      adoptable.set(rep.replicaId, l);
    }
  }
  for (const [rid, reps] of adoptable) {
    adoptReplica(st, rid, reps, models.get(reps[0].spec!.model)!, now);
    for (const rep of reps) claimed.add(rep.shardId);
    res.adopted++;
  }
  // Orphans are stopped beside the pass (queued here, `orphanStopConcurrency` in flight), never
  // awaited by it, and only on reachable nodes: one agent reporting thousands of shards and going
  // away must not slow placement for everyone (docs/placement.md, "Orphan shards").
  st.orphans.noteConditions(view.nodes);
  const unclaimed = new Set<string>();
  const queuedPerNode = new Map<string, number>();
  for (const rep of view.shards) {
    if (claimed.has(rep.shardId) || TERMINAL_SHARD_STATES.has(rep.state)) continue;
    if (!st.unclaimedLastPass.has(rep.shardId)) {
      unclaimed.add(rep.shardId);
      continue;
    }
    // Still an orphan next pass too, whatever happens to this stop: it is stopped (again) then if it still runs.
    unclaimed.add(rep.shardId);
    if (st.orphans.isPending(rep.shardId)) continue;
    if (!st.orphans.nodeOpen(nodes.get(rep.nodeId), now)) {
      res.orphansDeferred++;
      continue;
    }
    st.orphans.enqueue({ nodeId: rep.nodeId, shardId: rep.shardId, token });
    queuedPerNode.set(rep.nodeId, (queuedPerNode.get(rep.nodeId) ?? 0) + 1);
    res.orphansStopped++;
  }

  st.unclaimedLastPass = unclaimed;
  for (const [node, count] of queuedPerNode) st.o.log?.warn({ node, shards: count }, 'stopping orphan shards no replica claims');
  st.orphans.pump();
}

/** Phase 2: updates replicas from the reports; fails what must fail, marks what became ready. */
export function updateReplicas(st: ReconcilerState, pass: Pass): void {
  const { now, nodes, reports, res } = pass;
  // Update replicas from reports; fail what must fail.
  for (const r of st.replicas.values()) {
    let fail: string | undefined;
    for (const s of r.shards) {
      const node = nodes.get(s.nodeId);
      const rep = reports.get(s.spec.shardId);
      if (rep) {
        s.state = rep.state;
        s.message = rep.message;
        s.drained = rep.state === 'draining' && !!rep.drained;
        if (rep.endpoint) s.endpoint = rep.endpoint;
      }
      if (r.state === 'stopping' || r.state === 'failed') continue;
      if (!node || node.condition === 'lost') fail ??= `node ${s.nodeId} lost`;
      else if (rep?.state === 'failed') fail ??= `shard ${s.spec.shardId} failed${rep.message ? `: ${rep.message}` : ''}`;
      else if (rep?.state === 'stopped' && r.state !== 'draining') fail ??= `shard ${s.spec.shardId} stopped unexpectedly`;
      else if (!rep && now - s.sinceMs >= st.o.reportGraceMs && node.condition === 'ready') fail ??= `shard ${s.spec.shardId} is not reported by ${s.nodeId}`;
    }
    if (!fail && r.state === 'starting' && now - r.createdAtMs > r.profile.startupTimeoutMs + st.o.reportGraceMs) {
      fail = `not ready within the profile's startup timeout (${Math.round(r.profile.startupTimeoutMs / 1000)} s)`;
    }
    if (fail) {
      r.state = 'failed';
      r.message = fail;
      res.failed++;
      const b = st.backoff.get(r.model) ?? { failures: 0, notBeforeMs: 0 };
      const delay = Math.min(st.o.backoffMaxMs, st.o.backoffBaseMs * 2 ** b.failures);
      st.backoff.set(r.model, { failures: b.failures + 1, notBeforeMs: now + delay });
      st.o.log?.warn({ replica: r.id, model: r.model, reason: fail, retryInMs: delay }, 'replica failed; stopping it whole');
      continue;
    }
    if (r.state === 'starting' && r.shards.every((s) => s.state === 'ready') && r.shards[0].endpoint) {
      r.state = 'ready';
      r.readyAtMs = now;
      st.backoff.delete(r.model);
      st.o.log?.info({ replica: r.id, model: r.model, endpoint: r.shards[0].endpoint }, 'replica ready');
    }
  }
}

/** Phase 3: node drains move one replica per draining node at a time, replacement first. */
export function markEvacuations(st: ReconcilerState, pass: Pass): void {
  const { view, nodes } = pass;
  // Node drains: move one replica per draining node at a time, replacement first.
  // An uncordon ends a drain: a replica not yet drained stays where it is.
  for (const r of st.replicas.values()) if (r.evacuating && !r.shards.some((s) => nodes.get(s.nodeId)?.draining)) r.evacuating = false;
  for (const n of view.nodes) {
    if (!n.draining) continue;
    const here = [...st.replicas.values()].filter((r) => r.shards.some((s) => s.nodeId === n.id) && (r.state === 'ready' || r.state === 'starting'));
    if (here.some((r) => r.evacuating)) continue;
    const next = here.sort((a, b) => (a.id < b.id ? -1 : 1))[0];
    if (next) {
      next.evacuating = true;
      st.o.log?.info({ replica: next.id, node: n.id }, 'moving a replica off a draining node');
    }
  }
}

/** Phase 4: desired against actual: drains what is too many, places what is missing. */
export async function converge(st: ReconcilerState, pass: Pass): Promise<void> {
  const { now, token, nodes, models, res } = pass;
  // Desired against actual. Replicas of models gone from the catalog drain.
  for (const r of st.replicas.values()) {
    if (!models.has(r.model) && (r.state === 'ready' || r.state === 'starting')) {
      await st.startDrain(r, 'model removed from the catalog', now, token);
      res.drained++;
    }
  }
  // Critical models first, so they take what frees up before lower classes.
  for (const m of byClassDescending([...models.values()])) {
    const want = st.desired(m, now);
    const live = st.liveOf(m.name);
    const evacuating = [...st.replicas.values()].filter((r) => r.model === m.name && r.evacuating && (r.state === 'ready' || r.state === 'starting'));
    // An evacuating replica drains once the model has its wanted count Ready without it.
    const readyLive = live.filter((r) => r.state === 'ready').length;
    for (const r of evacuating) {
      if (readyLive >= want || want === 0) {
        await st.startDrain(r, `node drain`, now, token, st.nodeDrainTimeout(r, nodes));
        res.drained++;
      }
    }
    if (live.length > want) {
      const victims = [...live]
        .sort((a, b) => stateRank(a.state) - stateRank(b.state) || b.createdAtMs - a.createdAtMs || (a.id < b.id ? 1 : -1))
        .slice(0, live.length - want);
      for (const r of victims) {
        await st.startDrain(r, want === 0 ? 'idle or switched off' : 'excess replica', now, token);
        res.drained++;
      }
    } else if (live.length < want) {
      const b = st.backoff.get(m.name);
      if (b && now < b.notBeforeMs) continue;
      const { fleet, footprints } = st.fleetNow(m.name);
      let fp = footprints.get(m.name) ?? EMPTY_FOOTPRINT;
      const catalog = st.o.catalog();
      for (let i = live.length; i < want; i++) {
        const p = place(fleet, m, { footprint: fp, guard: st.sharing.guard(catalog, m, fleet, st.runningReplicas()) });
        if (!p.ok) {
          st.explanations.set(m.name, p.explanation);
          res.unschedulable.push(m.name);
          st.o.log?.warn({ model: m.name, missing: want - i }, 'model unschedulable; see explain-placement');
          await makeRoom(st, pass, m, fleet, fp);
          break;
        }
        st.sharing.settled(m.name);
        st.explanations.delete(m.name);
        fleet.assign(p.decision);
        fp = addToFootprint(fp, p.decision, fleet);
        await launchReplica(st, m, p.decision, nodes, now, token);
        res.placed++;
      }
    }
  }
}

/**
 * When `m` cannot be placed: the preemption or defragmentation worked out on
 * a copy of the fleet (docs/placement.md, "Sharing a cluster"), executed only
 * when that dry run placed the replica: its victims drain through the usual
 * path (withdrawn from the routers, drained, stopped) and the GPUs it needs
 * are held for it. One plan per model at a time.
 */
async function makeRoom(st: ReconcilerState, pass: Pass, m: Model, fleet: Fleet, fp: ModelFootprint): Promise<void> {
  const { now, token, res } = pass;
  if (st.sharing.pending(m.name, now)) return;
  const plan = st.sharing.plan(st.o.catalog(), m, fleet, st.runningReplicas(), fp);
  if (!plan) return;
  st.sharing.begin(m.name, plan, now);
  st.o.log?.info(
    { model: m.name, kind: plan.kind, victims: plan.victims.map((v) => v.replica), nodes: plan.decision.shards.map((s) => s.nodeId) },
    'making room: draining replicas (tried on a copy of the fleet first)',
  );
  for (const v of plan.victims) {
    const r = st.replicas.get(v.replica);
    if (!r || (r.state !== 'ready' && r.state !== 'starting')) continue;
    await st.startDrain(r, `${plan.kind === 'preemption' ? 'preempted' : 'moved'} for ${m.name}: ${v.detail}`, now, token);
    res.drained++;
  }
}

/** Phase 5: stops every shard of ended drains and failed replicas, then forgets what is gone. */
export async function stopEnded(st: ReconcilerState, pass: Pass): Promise<void> {
  const { now, token, nodes, reports, res } = pass;
  // Drains past their time, failed replicas: stop every shard. Then forget what is gone.
  for (const r of st.replicas.values()) {
    // A drain ends at its timeout, or as soon as the leader reports it drained (nothing left in flight).
    if (r.state === 'draining' && (now - r.drainStartedAtMs >= r.drainTimeoutMs || r.shards[0].state === 'stopped' || r.shards[0].drained))
      r.state = 'stopping';
    if (r.state === 'failed') r.state = 'stopping';
    if (r.state !== 'stopping') continue;
    // A shard on a Lost node cannot be told now; it is not marked stopped, so that if the node comes
    // back still running it (before the replica is forgotten), it is stopped then.
    const unreachable = (s: ShardRec) => {
      const node = nodes.get(s.nodeId);
      return !node || node.condition === 'lost';
    };
    for (const s of r.shards) {
      if (s.stopSent || unreachable(s)) continue;
      if (TERMINAL_SHARD_STATES.has(s.state as ShardStateName)) {
        s.stopSent = true;
        continue;
      }
      s.stopSent = await st.send(() => st.o.sink.stop(s.nodeId, s.spec.shardId, r.message || 'replica stopped', token), s.spec.shardId);
      if (s.stopSent) res.stopped++;
    }
    const gone = r.shards.every((s) => {
      const rep = reports.get(s.spec.shardId);
      return unreachable(s) || !rep || TERMINAL_SHARD_STATES.has(rep.state);
    });
    if (gone && r.shards.every((s) => s.stopSent || unreachable(s))) st.replicas.delete(r.id);
  }
}

const stateRank = (s: ReplicaStateName) => (s === 'starting' ? 0 : 1);

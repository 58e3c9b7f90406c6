import { ENGINE_RULES, engineContract } from '../engines';
import { Fleet } from '../fleet';
import { addToFootprint, domainOf, explain, place } from '../place';
import { EMPTY_FOOTPRINT, scalingMode, type Explanation, type Model, type ModelFootprint, type PlacementDecision, type Profile, type Scaling } from '../types';
import {
  TERMINAL_SHARD_STATES,
  type EndpointPublisher,
  type FleetView,
  type PlacedEndpoint,
  type ReconcilerNode,
  type ReplicaStateName,
  type ReplicaView,
  type ShardCommandSink,
  type ShardLaunchSpec,
  type ShardReport,
  type ShardStateName,
} from './types';

/** What the reconciler logs through (a pino logger fits). */
export interface ReconcilerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ReconcilerOptions {
  /** The catalog, current at each pass. */
  catalog: () => readonly Model[];
  sink: ShardCommandSink;
  publisher: EndpointPublisher;
  /** The fencing token while this process is the leader; undefined makes every pass a no-op. */
  fencingToken: () => number | undefined;
  now: () => number;
  /** Replica id generator; must never repeat across processes (random bytes). */
  newReplicaId: (model: string) => string;
  log?: ReconcilerLog;
  /** Engine HTTP and rendezvous ports are chosen per node from this range (inclusive). */
  portRange?: readonly [number, number];
  /** A placed shard the agent has not reported after this long is treated as failed, ms. */
  reportGraceMs?: number;
  /** How long a draining replica may finish its requests before it is stopped, ms. */
  drainTimeoutMs?: number;
  /** First re-placement delay after a failure, doubled per consecutive failure up to backoffMaxMs. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Called with the outcome of every pass (metrics). */
  onPass?: (r: PassResult) => void;
  /**
   * The replica's engine secret (libs/endpoints `deriveEngineSecret` under the
   * cluster engine key). When set, every spec carries it and every published
   * endpoint says `auth: replica-key`; when absent, engines run without a key.
   */
  engineSecret?: (replicaId: string) => string;
  /**
   * Orphan StopShards in flight at once (default 16). Orphan stops run
   * beside the passes, never inside one: a pass queues them and goes on.
   */
  orphanStopConcurrency?: number;
}

export interface PassResult {
  readonly leader: boolean;
  readonly placed: number;
  readonly failed: number;
  readonly drained: number;
  readonly stopped: number;
  /** Orphan StopShards this pass queued (they are sent beside the passes, `orphanStopConcurrency` at once). */
  readonly orphansStopped: number;
  /** Orphans left alone this pass: their node is not reachable (or its stops keep failing); stopped once it is. */
  readonly orphansDeferred: number;
  readonly adopted: number;
  readonly unschedulable: readonly string[];
}

interface ShardRec {
  spec: ShardLaunchSpec;
  nodeId: string;
  state: ShardStateName | 'unreported';
  message: string;
  endpoint: string;
  /** When StartShard was sent (or the shard adopted). */
  sinceMs: number;
  stopSent: boolean;
  /** The agent reports it drained (ShardStatus.drained). */
  drained: boolean;
}

interface ReplicaRec {
  id: string;
  model: string;
  profile: Profile;
  fabric: string;
  gpuClass: string;
  pool: string;
  state: ReplicaStateName;
  shards: ShardRec[];
  createdAtMs: number;
  readyAtMs: number;
  adopted: boolean;
  message: string;
  drainStartedAtMs: number;
  /** This drain's limit, ms: the node's `--replica-timeout` for a node drain, else drainTimeoutMs. */
  drainTimeoutMs: number;
  /** Being moved off a draining node: a replacement is placed first. */
  evacuating: boolean;
}

interface Backoff {
  failures: number;
  notBeforeMs: number;
}

interface OrphanStop {
  nodeId: string;
  shardId: string;
  token: number;
}

const NOT_LEADER: PassResult = { leader: false, placed: 0, failed: 0, drained: 0, stopped: 0, orphansStopped: 0, orphansDeferred: 0, adopted: 0, unschedulable: [] };

/** The engines' metric vocabulary: sim-engine speaks vLLM's names. */
const METRICS_ENGINE: Record<string, PlacedEndpoint['engine']> = { vllm: 'vllm', sglang: 'sglang', llamacpp: 'llamacpp', sim: 'vllm' };

/**
 * The reconciler (docs/placement.md, "The reconciler"): compares desired replicas (catalog scaling, operator targets,
 * on-demand use) with actual ones (what the fleet reports) and closes the
 * gap through shard commands. Pure apart from the injected sink, publisher
 * and clock; one pass at a time.
 *
 * Replica state lives only here and in the fleet: a new leader (or a
 * restarted one) rebuilds it from the shards agents report, adopting those
 * whose spec names a catalog model, so nothing is started twice; a shard
 * nothing claims for two consecutive passes is stopped (docs/inventory.md#what-it-keeps-and-where-from).
 */
export class Reconciler {
  private readonly replicas = new Map<string, ReplicaRec>();
  private readonly backoff = new Map<string, Backoff>();
  private readonly lastDemand = new Map<string, number>();
  private readonly targets = new Map<string, { min: number; max: number }>();
  private readonly explanations = new Map<string, Explanation>();
  private unclaimedLastPass = new Set<string>();
  private ledBy: number | undefined;
  private published = '';
  private running: Promise<PassResult> | undefined;
  private again = false;
  private view: FleetView = { nodes: [], shards: [] };
  /** Orphan stops queued (from `orphanHead` on) or in flight, by shard id. */
  private readonly orphanQueue: OrphanStop[] = [];
  private orphanHead = 0;
  private readonly orphanPending = new Set<string>();
  private orphanActive = 0;
  /** Nodes whose orphan stops failed: skipped until notBeforeMs (doubling), or until they reconnect. */
  private readonly orphanBackoff = new Map<string, Backoff & { condition: string }>();
  private orphanWaiters: Array<() => void> = [];
  private readonly o: Required<Omit<ReconcilerOptions, 'log' | 'onPass' | 'engineSecret'>> & Pick<ReconcilerOptions, 'log' | 'onPass' | 'engineSecret'>;

  constructor(opts: ReconcilerOptions) {
    this.o = {
      portRange: [20000, 20999],
      reportGraceMs: 30_000,
      drainTimeoutMs: 30_000,
      backoffBaseMs: 2_000,
      backoffMaxMs: 120_000,
      orphanStopConcurrency: 16,
      ...opts,
    };
  }

  // ---- inputs besides the fleet ----

  /** A request arrived for `model` (on demand: starts it, and use keeps it alive). */
  noteDemand(model: string, atMs = this.o.now()): void {
    if ((this.lastDemand.get(model) ?? -Infinity) < atMs) this.lastDemand.set(model, atMs);
  }

  /** When a request last asked for `model` (unix ms), if ever. */
  lastDemandOf(model: string): number | undefined {
    return this.lastDemand.get(model);
  }

  /** An operator override of the catalog's min/max (`ctl model target`); undefined clears it. */
  setTarget(model: string, t: { min: number; max: number } | undefined): void {
    if (t) this.targets.set(model, t);
    else this.targets.delete(model);
  }

  target(model: string): { min: number; max: number } | undefined {
    return this.targets.get(model);
  }

  /** The scaling in force: the catalog's, with an operator target's min/max over it. */
  scalingOf(m: Model): Scaling {
    const t = this.targets.get(m.name);
    return t ? { ...m.scaling, min: t.min, max: t.max } : m.scaling;
  }

  /** Replicas wanted now (docs/placement.md#scaling). */
  desired(m: Model, now = this.o.now()): number {
    const s = this.scalingOf(m);
    const mode = scalingMode(s);
    if (mode === 'off') return 0;
    const last = this.lastDemand.get(m.name);
    const inUse = last !== undefined && (s.idleTimeoutMs === 0 || now - last < s.idleTimeoutMs);
    return Math.min(s.max, Math.max(s.min, inUse ? 1 : 0));
  }

  // ---- what ctl reads ----

  replicaViews(): ReplicaView[] {
    return [...this.replicas.values()]
      .map((r) => ({
        id: r.id,
        model: r.model,
        profile: r.profile,
        fabric: r.fabric,
        gpuClass: r.gpuClass,
        pool: r.pool,
        state: r.state,
        endpoint: r.shards[0]?.endpoint ?? '',
        shards: r.shards.map((s) => ({ shardId: s.spec.shardId, nodeId: s.nodeId, rank: s.spec.rank, gpuIndices: s.spec.gpuIndices, state: s.state, message: s.message })),
        createdAtMs: r.createdAtMs,
        readyAtMs: r.readyAtMs,
        adopted: r.adopted,
        message: r.message,
      }))
      .sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : a.id < b.id ? -1 : 1));
  }

  /** Why the model's last placement attempt failed; undefined when it did not. */
  lastExplanation(model: string): Explanation | undefined {
    return this.explanations.get(model);
  }

  /** What placement would do for one more replica of `m` now (`ctl explain-placement`). */
  explain(m: Model, profile?: string): Explanation {
    const { fleet, footprints } = this.fleetNow();
    const fp = footprints.get(m.name) ?? EMPTY_FOOTPRINT;
    const live = this.liveOf(m.name).length;
    return explain(fleet, m, { footprint: fp, all: true, profile, atMax: live >= this.scalingOf(m).max && this.scalingOf(m).max > 0 });
  }

  // ---- the pass ----

  /** Runs a pass against the latest fleet; concurrent calls coalesce into one more pass. */
  reconcile(view?: FleetView): Promise<PassResult> {
    if (view) this.view = view;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let r: PassResult;
      do {
        this.again = false;
        r = await this.pass();
        this.o.onPass?.(r);
      } while (this.again);
      return r;
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<PassResult> {
    const token = this.o.fencingToken();
    if (token === undefined) {
      if (this.ledBy !== undefined) this.forget();
      return NOT_LEADER;
    }
    if (this.ledBy !== token) {
      // A new term: what a previous term believed may be stale; rebuild from the fleet.
      this.forget();
      this.ledBy = token;
    }
    const now = this.o.now();
    const view = this.view;
    const nodes = new Map(view.nodes.map((n) => [n.id, n]));
    const reports = new Map<string, ShardReport>();
    for (const s of view.shards) reports.set(s.shardId, s);
    const models = new Map<string, Model>();
    for (const m of this.o.catalog()) models.set(m.name, m);
    const res = { placed: 0, failed: 0, drained: 0, stopped: 0, orphansStopped: 0, orphansDeferred: 0, adopted: 0, unschedulable: [] as string[] };

    // 1. Claim: shards of known replicas; adopt whole replicas from specs; the rest are orphans.
    // A Lost node's shards are neither adopted nor orphans: inventory still lists them, but they
    // count as failed (adopting them again would fail the replica again, every pass, and hold the
    // model in backoff forever); if the node comes back, its agent reports what really runs.
    const claimed = new Set<string>();
    for (const r of this.replicas.values()) for (const s of r.shards) claimed.add(s.spec.shardId);
    for (const rep of view.shards) if (nodes.get(rep.nodeId)?.condition === 'lost' || !nodes.has(rep.nodeId)) claimed.add(rep.shardId);
    const adoptable = new Map<string, ShardReport[]>();
    for (const rep of view.shards) {
      if (claimed.has(rep.shardId) || TERMINAL_SHARD_STATES.has(rep.state)) continue;
      const m = rep.spec ? models.get(rep.spec.model) : undefined;
      const p = m?.profiles.find((x) => x.name === rep.spec!.profile);
      if (rep.spec && p && !this.replicas.has(rep.replicaId)) {
        const l = adoptable.get(rep.replicaId) ?? [];
        l.push(rep);
        adoptable.set(rep.replicaId, l);
      }
    }
    for (const [rid, reps] of adoptable) {
      this.adopt(rid, reps, models.get(reps[0].spec!.model)!, now);
      for (const rep of reps) claimed.add(rep.shardId);
      res.adopted++;
    }
    // Orphans are stopped beside the pass (queued here, `orphanStopConcurrency` in flight), never
    // awaited by it, and only on reachable nodes: one agent reporting thousands of shards and going
    // away must not slow placement for everyone (docs/placement.md, "Orphan shards").
    for (const n of view.nodes) {
      const b = this.orphanBackoff.get(n.id);
      if (b && n.condition !== 'ready') b.condition = n.condition;
    }
    const unclaimed = new Set<string>();
    const queuedPerNode = new Map<string, number>();
    for (const rep of view.shards) {
      if (claimed.has(rep.shardId) || TERMINAL_SHARD_STATES.has(rep.state)) continue;
      if (!this.unclaimedLastPass.has(rep.shardId)) {
        unclaimed.add(rep.shardId);
        continue;
      }
      // Still an orphan next pass too, whatever happens to this stop: it is stopped (again) then if it still runs.
      unclaimed.add(rep.shardId);
      if (this.orphanPending.has(rep.shardId)) continue;
      if (!this.orphanNodeOpen(nodes.get(rep.nodeId), now)) {
        res.orphansDeferred++;
        continue;
      }
      this.orphanPending.add(rep.shardId);
      this.orphanQueue.push({ nodeId: rep.nodeId, shardId: rep.shardId, token });
      queuedPerNode.set(rep.nodeId, (queuedPerNode.get(rep.nodeId) ?? 0) + 1);
      res.orphansStopped++;
    }
    this.unclaimedLastPass = unclaimed;
    for (const [node, count] of queuedPerNode) this.o.log?.warn({ node, shards: count }, 'stopping orphan shards no replica claims');
    this.pumpOrphans();

    // 2. Update replicas from reports; fail what must fail.
    for (const r of this.replicas.values()) {
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
        else if (!rep && now - s.sinceMs >= this.o.reportGraceMs && node.condition === 'ready') fail ??= `shard ${s.spec.shardId} is not reported by ${s.nodeId}`;
      }
      if (!fail && r.state === 'starting' && now - r.createdAtMs > r.profile.startupTimeoutMs + this.o.reportGraceMs) {
        fail = `not ready within the profile's startup timeout (${Math.round(r.profile.startupTimeoutMs / 1000)} s)`;
      }
      if (fail) {
        r.state = 'failed';
        r.message = fail;
        res.failed++;
        const b = this.backoff.get(r.model) ?? { failures: 0, notBeforeMs: 0 };
        const delay = Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** b.failures);
        this.backoff.set(r.model, { failures: b.failures + 1, notBeforeMs: now + delay });
        this.o.log?.warn({ replica: r.id, model: r.model, reason: fail, retryInMs: delay }, 'replica failed; stopping it whole');
        continue;
      }
      if (r.state === 'starting' && r.shards.every((s) => s.state === 'ready') && r.shards[0].endpoint) {
        r.state = 'ready';
        r.readyAtMs = now;
        this.backoff.delete(r.model);
        this.o.log?.info({ replica: r.id, model: r.model, endpoint: r.shards[0].endpoint }, 'replica ready');
      }
    }

    // 3. Node drains: move one replica per draining node at a time, replacement first.
    // An uncordon ends a drain: a replica not yet drained stays where it is.
    for (const r of this.replicas.values()) if (r.evacuating && !r.shards.some((s) => nodes.get(s.nodeId)?.draining)) r.evacuating = false;
    for (const n of view.nodes) {
      if (!n.draining) continue;
      const here = [...this.replicas.values()].filter((r) => r.shards.some((s) => s.nodeId === n.id) && (r.state === 'ready' || r.state === 'starting'));
      if (here.some((r) => r.evacuating)) continue;
      const next = here.sort((a, b) => (a.id < b.id ? -1 : 1))[0];
      if (next) {
        next.evacuating = true;
        this.o.log?.info({ replica: next.id, node: n.id }, 'moving a replica off a draining node');
      }
    }

    // 4. Desired against actual. Replicas of models gone from the catalog drain.
    for (const r of this.replicas.values()) {
      if (!models.has(r.model) && (r.state === 'ready' || r.state === 'starting')) {
        await this.startDrain(r, 'model removed from the catalog', now, token);
        res.drained++;
      }
    }
    for (const m of models.values()) {
      const want = this.desired(m, now);
      const live = this.liveOf(m.name);
      const evacuating = [...this.replicas.values()].filter((r) => r.model === m.name && r.evacuating && (r.state === 'ready' || r.state === 'starting'));
      // An evacuating replica drains once the model has its wanted count Ready without it.
      const readyLive = live.filter((r) => r.state === 'ready').length;
      for (const r of evacuating) {
        if (readyLive >= want || want === 0) {
          await this.startDrain(r, `node drain`, now, token, this.nodeDrainTimeout(r, nodes));
          res.drained++;
        }
      }
      if (live.length > want) {
        const victims = [...live].sort((a, b) => stateRank(a.state) - stateRank(b.state) || b.createdAtMs - a.createdAtMs || (a.id < b.id ? 1 : -1)).slice(0, live.length - want);
        for (const r of victims) {
          await this.startDrain(r, want === 0 ? 'idle or switched off' : 'excess replica', now, token);
          res.drained++;
        }
      } else if (live.length < want) {
        const b = this.backoff.get(m.name);
        if (b && now < b.notBeforeMs) continue;
        const { fleet, footprints } = this.fleetNow();
        let fp = footprints.get(m.name) ?? EMPTY_FOOTPRINT;
        for (let i = live.length; i < want; i++) {
          const p = place(fleet, m, { footprint: fp });
          if (!p.ok) {
            this.explanations.set(m.name, p.explanation);
            res.unschedulable.push(m.name);
            this.o.log?.warn({ model: m.name, missing: want - i }, 'model unschedulable; see explain-placement');
            break;
          }
          this.explanations.delete(m.name);
          fleet.assign(p.decision);
          fp = addToFootprint(fp, p.decision, fleet);
          await this.launch(m, p.decision, nodes, now, token);
          res.placed++;
        }
      }
    }

    // 5. Drains past their time, failed replicas: stop every shard. Then forget what is gone.
    for (const r of this.replicas.values()) {
      // A drain ends at its timeout, or as soon as the leader reports it drained (nothing left in flight).
      if (r.state === 'draining' && (now - r.drainStartedAtMs >= r.drainTimeoutMs || r.shards[0].state === 'stopped' || r.shards[0].drained)) r.state = 'stopping';
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
        s.stopSent = await this.send(() => this.o.sink.stop(s.nodeId, s.spec.shardId, r.message || 'replica stopped', token), s.spec.shardId);
        if (s.stopSent) res.stopped++;
      }
      const gone = r.shards.every((s) => {
        const rep = reports.get(s.spec.shardId);
        return unreachable(s) || !rep || TERMINAL_SHARD_STATES.has(rep.state);
      });
      if (gone && r.shards.every((s) => s.stopSent || unreachable(s))) this.replicas.delete(r.id);
    }

    // 6. Publish Ready replicas; draining ones have already left the list.
    await this.publish();
    return { leader: true, ...res };
  }

  // ---- helpers ----

  private forget(): void {
    this.replicas.clear();
    this.unclaimedLastPass = new Set();
    this.ledBy = undefined;
    // Queued orphan stops belong to the old term (their token); those in flight finish on their own.
    for (let i = this.orphanHead; i < this.orphanQueue.length; i++) this.orphanPending.delete(this.orphanQueue[i].shardId);
    this.orphanQueue.length = 0;
    this.orphanHead = 0;
    this.orphanBackoff.clear();
    this.notifyOrphanWaiters();
  }

  /** Resolves once no orphan stop is queued or in flight (tests, shutdown). */
  orphanStopsSettled(): Promise<void> {
    if (!this.orphanPending.size) return Promise.resolve();
    return new Promise((resolve) => this.orphanWaiters.push(resolve));
  }

  /** Orphan stops queued or in flight. */
  orphanStopsPending(): number {
    return this.orphanPending.size;
  }

  /**
   * Whether orphans on `node` may be told to stop now: it is connected, and
   * its earlier orphan stops did not fail recently (a node that reconnects
   * is tried again at once).
   */
  private orphanNodeOpen(node: ReconcilerNode | undefined, now: number): boolean {
    if (!node || node.condition !== 'ready') return false;
    const b = this.orphanBackoff.get(node.id);
    if (!b) return true;
    if (b.condition !== 'ready' || now >= b.notBeforeMs) return true;
    return false;
  }

  private noteOrphanNode(nodeId: string, ok: boolean): void {
    if (ok) {
      this.orphanBackoff.delete(nodeId);
      return;
    }
    const b = this.orphanBackoff.get(nodeId);
    // The stops of one round fail together: one failure per round doubles the wait.
    if (b && b.condition === 'ready' && this.o.now() < b.notBeforeMs) return;
    const failures = (b?.failures ?? 0) + 1;
    const delay = Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** Math.min(failures - 1, 30));
    this.orphanBackoff.set(nodeId, { failures, notBeforeMs: this.o.now() + delay, condition: 'ready' });
  }

  /** Starts queued orphan stops up to the concurrency bound; each finished one starts the next. */
  private pumpOrphans(): void {
    while (this.orphanActive < this.o.orphanStopConcurrency && this.orphanHead < this.orphanQueue.length) {
      const job = this.orphanQueue[this.orphanHead++];
      const node = this.view.nodes.find((n) => n.id === job.nodeId);
      if (this.o.fencingToken() !== job.token || !this.orphanNodeOpen(node, this.o.now())) {
        // The node went away (or failed its stops) or the term ended while this waited: the next pass decides again.
        this.orphanPending.delete(job.shardId);
        continue;
      }
      this.orphanActive++;
      void this.o.sink.stop(job.nodeId, job.shardId, 'orphan: no replica claims it', job.token).then(
        () => this.orphanDone(job, true),
        (e: unknown) => {
          if (!this.orphanBackoff.has(job.nodeId)) this.o.log?.warn({ node: job.nodeId, shard: job.shardId, err: (e as Error).message }, 'orphan stop failed; the node is skipped for a while');
          this.orphanDone(job, false);
        },
      );
    }
    if (this.orphanHead === this.orphanQueue.length) {
      this.orphanQueue.length = 0;
      this.orphanHead = 0;
    }
    this.notifyOrphanWaiters();
  }

  private orphanDone(job: OrphanStop, ok: boolean): void {
    this.orphanActive--;
    this.orphanPending.delete(job.shardId);
    this.noteOrphanNode(job.nodeId, ok);
    this.pumpOrphans();
  }

  private notifyOrphanWaiters(): void {
    if (this.orphanPending.size || !this.orphanWaiters.length) return;
    const w = this.orphanWaiters;
    this.orphanWaiters = [];
    for (const f of w) f();
  }

  private liveOf(model: string): ReplicaRec[] {
    return [...this.replicas.values()].filter((r) => r.model === model && !r.evacuating && (r.state === 'starting' || r.state === 'ready'));
  }

  /** The fleet with every GPU held by a replica or a reported live shard taken, and each model's footprint. */
  private fleetNow(): { fleet: Fleet; footprints: Map<string, ModelFootprint> } {
    const alloc = new Map<string, Set<number>>();
    const take = (node: string, gpus: readonly number[]) => {
      const s = alloc.get(node) ?? new Set<number>();
      for (const g of gpus) s.add(g);
      alloc.set(node, s);
    };
    for (const r of this.replicas.values()) for (const s of r.shards) take(s.nodeId, s.spec.gpuIndices);
    for (const rep of this.view.shards) if (rep.spec && !TERMINAL_SHARD_STATES.has(rep.state)) take(rep.nodeId, rep.spec.gpuIndices);
    const fleet = new Fleet(this.view.nodes.map((n) => (n.draining && !n.cordoned ? { ...n, cordoned: true } : n)), alloc);
    const footprints = new Map<string, ModelFootprint>();
    for (const r of this.replicas.values()) {
      if (r.state !== 'starting' && r.state !== 'ready') continue;
      const fp = footprints.get(r.model) ?? EMPTY_FOOTPRINT;
      const nodes = new Set(fp.nodes);
      const fabrics = new Set(fp.fabrics);
      for (const s of r.shards) {
        nodes.add(s.nodeId);
        const n = fleet.node(s.nodeId);
        if (!r.fabric && n) fabrics.add(domainOf(n));
      }
      if (r.fabric) fabrics.add(r.fabric);
      footprints.set(r.model, { replicas: fp.replicas + 1, nodes, fabrics });
    }
    return { fleet, footprints };
  }

  /**
   * Ports nobody uses on a node's address: ours and every reported shard's on every node with the
   * same management address (several agents on one host, as `llmgw up` and the tests run them,
   * share one port space).
   */
  private freePorts(nodeId: string, n: number, taken: Set<number>): number[] {
    const addrOf = new Map(this.view.nodes.map((x) => [x.id, x.mgmtAddr]));
    const here = (id: string) => id === nodeId || (!!addrOf.get(nodeId) && addrOf.get(id) === addrOf.get(nodeId));
    const take = (spec: ShardLaunchSpec) => taken.add(spec.httpPort).add(spec.leaderPort).add(spec.kvEventsPort ?? 0).add(spec.kvReplayPort ?? 0);
    for (const r of this.replicas.values()) for (const s of r.shards) if (here(s.nodeId)) take(s.spec);
    for (const rep of this.view.shards) if (here(rep.nodeId) && rep.spec) take(rep.spec);
    const out: number[] = [];
    for (let p = this.o.portRange[0]; p <= this.o.portRange[1] && out.length < n; p++) if (!taken.has(p)) out.push(p);
    if (out.length < n) throw new Error(`no free port left on ${nodeId} in ${this.o.portRange.join('-')}`);
    for (const p of out) taken.add(p);
    return out;
  }

  private async launch(m: Model, d: PlacementDecision, nodes: Map<string, ReconcilerNode>, now: number, token: number): Promise<void> {
    const id = this.o.newReplicaId(m.name);
    const p = d.profile;
    const leader = nodes.get(d.shards[0].nodeId)!;
    // Ports handed out in this launch, per management address (two shards on one host never share one).
    const taken = new Map<string, Set<number>>();
    const portsOf = (node: string, n: number) => {
      const key = nodes.get(node)?.mgmtAddr || node;
      const t = taken.get(key) ?? new Set<number>();
      taken.set(key, t);
      return this.freePorts(node, n, t);
    };
    const contract = engineContract(p);
    // The leader's ports: HTTP, then the rendezvous port (multi-node), then KV-event PUB and replay.
    const multi = d.shards.length > 1;
    const leaderPorts = portsOf(leader.id, 1 + (multi ? 1 : 0) + (contract.kvEvents ? 2 : 0));
    const httpPort = leaderPorts[0];
    const leaderPort = multi ? leaderPorts[1] : 0;
    const [kvEventsPort, kvReplayPort] = contract.kvEvents ? leaderPorts.slice(multi ? 2 : 1) : [0, 0];
    const apiKey = this.o.engineSecret?.(id);
    const shards: ShardRec[] = d.shards.map((s) => {
      const spec: ShardLaunchSpec = {
        shardId: `${id}-r${s.rank}`,
        replicaId: id,
        model: m.name,
        profile: p.name,
        engine: p.engine,
        rank: s.rank,
        nnodes: d.shards.length,
        leaderAddr: leader.mgmtAddr,
        leaderPort,
        gpuIndices: s.gpuIndices,
        hcas: s.hcas,
        fabric: d.fabric,
        httpPort: s.rank === 0 ? httpPort : portsOf(s.nodeId, 1)[0],
        modelPath: m.source,
        args: p.args,
        env: p.env,
        tp: p.tp,
        pp: p.pp,
        startupTimeoutMs: p.startupTimeoutMs,
        ...(p.launchMode ? { launchMode: p.launchMode } : {}),
        servedModelName: m.name,
        maxNumSeqs: contract.maxNumSeqs,
        schedulingPolicy: contract.schedulingPolicy,
        kvEventsPort: s.rank === 0 ? kvEventsPort : 0,
        kvReplayPort: s.rank === 0 ? kvReplayPort : 0,
        ...(apiKey ? { apiKey } : {}),
      };
      return { spec, nodeId: s.nodeId, state: 'unreported', message: '', endpoint: '', sinceMs: now, stopSent: false, drained: false };
    });
    const r: ReplicaRec = {
      id,
      model: m.name,
      profile: p,
      fabric: d.fabric,
      gpuClass: d.gpuClass,
      pool: d.pool,
      state: 'starting',
      shards,
      createdAtMs: now,
      readyAtMs: 0,
      adopted: false,
      message: '',
      drainStartedAtMs: 0,
      drainTimeoutMs: this.o.drainTimeoutMs,
      evacuating: false,
    };
    this.replicas.set(id, r);
    this.o.log?.info({ replica: id, model: m.name, profile: p.name, fabric: d.fabric || undefined, nodes: d.shards.map((s) => s.nodeId) }, 'placing a replica');
    const order = ENGINE_RULES[p.engine].startOrder === 'workers-first' ? [...shards.slice(1), shards[0]] : shards;
    for (const s of order) {
      try {
        await this.o.sink.start(s.nodeId, s.spec, token);
      } catch (e) {
        r.state = 'failed';
        r.message = `StartShard ${s.spec.shardId} on ${s.nodeId} failed: ${(e as Error).message}`;
        const b = this.backoff.get(m.name) ?? { failures: 0, notBeforeMs: 0 };
        this.backoff.set(m.name, { failures: b.failures + 1, notBeforeMs: now + Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** b.failures) });
        this.o.log?.warn({ replica: id, err: (e as Error).message }, 'start failed; the replica will be stopped and re-placed');
        return;
      }
    }
  }

  private adopt(id: string, reps: ShardReport[], m: Model, now: number): void {
    const specs = reps.map((r) => r.spec!).sort((a, b) => a.rank - b.rank);
    const p = m.profiles.find((x) => x.name === specs[0].profile)!;
    const nn = specs[0].nnodes;
    const shards: ShardRec[] = [];
    for (let rank = 0; rank < nn; rank++) {
      const rep = reps.find((r) => r.spec!.rank === rank);
      if (rep) shards.push({ spec: rep.spec!, nodeId: rep.nodeId, state: rep.state, message: rep.message, endpoint: rep.endpoint, sinceMs: now, stopSent: false, drained: rep.state === 'draining' && !!rep.drained });
    }
    const missing = nn - shards.length;
    const ready = !missing && shards.every((s) => s.state === 'ready') && !!shards[0].endpoint;
    const fabric = specs[0].fabric;
    this.replicas.set(id, {
      id,
      model: m.name,
      profile: p,
      fabric,
      gpuClass: p.gpuClass,
      pool: fabric ? `${p.gpuClass}/${fabric}` : p.gpuClass,
      state: missing ? 'failed' : ready ? 'ready' : 'starting',
      shards,
      createdAtMs: now,
      readyAtMs: ready ? now : 0,
      adopted: true,
      message: missing ? `adopted with ${missing} of ${nn} shards missing` : 'adopted from the fleet',
      drainStartedAtMs: 0,
      drainTimeoutMs: this.o.drainTimeoutMs,
      evacuating: false,
    });
    this.o.log?.info({ replica: id, model: m.name, shards: shards.length, of: nn }, 'adopted a replica the fleet reports');
  }

  /**
   * The drain limit of a replica moved off draining nodes: the shortest
   * `--replica-timeout` among the draining nodes it has shards on, else
   * drainTimeoutMs.
   */
  private nodeDrainTimeout(r: ReplicaRec, nodes: Map<string, ReconcilerNode>): number {
    const set = r.shards.map((s) => nodes.get(s.nodeId)).filter((n) => n?.draining && (n.drainTimeoutMs ?? 0) > 0).map((n) => n!.drainTimeoutMs!);
    return set.length ? Math.min(...set) : this.o.drainTimeoutMs;
  }

  /**
   * When the next pass must run for a drain to end on time (unix ms): the
   * earliest deadline of a draining replica; undefined when none drains.
   * The scheduler wakes then, so `--replica-timeout 2s` takes 2 s, not 2 s
   * plus up to a reconcile interval.
   */
  nextDeadlineMs(): number | undefined {
    let next: number | undefined;
    for (const r of this.replicas.values()) {
      if (r.state !== 'draining') continue;
      const at = r.drainStartedAtMs + r.drainTimeoutMs;
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  private async startDrain(r: ReplicaRec, why: string, now: number, token: number, timeoutMs = this.o.drainTimeoutMs): Promise<void> {
    r.evacuating = false;
    if (r.state !== 'ready') {
      r.state = 'stopping';
      r.message = why;
      return;
    }
    r.state = 'draining';
    r.message = why;
    r.drainStartedAtMs = now;
    r.drainTimeoutMs = timeoutMs;
    // Withdraw from routers before the engine is told, so no new request lands on it.
    await this.publish();
    const s = r.shards[0];
    await this.send(() => this.o.sink.drain(s.nodeId, s.spec.shardId, why, timeoutMs, token), s.spec.shardId);
    this.o.log?.info({ replica: r.id, model: r.model, reason: why, timeoutMs }, 'draining a replica');
  }

  /** Runs one command; false (logged) when it failed, so the next pass retries it. */
  private async send(fn: () => Promise<void>, shardId: string): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (e) {
      this.o.log?.warn({ shard: shardId, err: (e as Error).message }, 'shard command failed; retrying next pass');
      return false;
    }
  }

  /**
   * The published set: Ready replicas that are not draining, each as the
   * endpoint record routers and admission read (what rank 0 runs with: its
   * batch slots, scheduling policy, KV-event sockets on the endpoint's host,
   * and whether it wants the replica's engine secret).
   */
  endpoints(): PlacedEndpoint[] {
    const out: PlacedEndpoint[] = [];
    for (const r of this.replicas.values()) {
      if (r.state !== 'ready') continue;
      const lead = r.shards[0];
      const spec = lead.spec;
      const host = hostOf(lead.endpoint);
      out.push({
        id: r.id,
        url: lead.endpoint,
        model: r.model,
        engine: METRICS_ENGINE[r.profile.engine],
        pool: r.pool,
        priority: r.profile.priority,
        weight: r.profile.weight,
        draining: false,
        ...(spec.schedulingPolicy === 'priority' ? { schedulingPolicy: 'priority' as const } : {}),
        ...(spec.maxNumSeqs ? { maxNumSeqs: spec.maxNumSeqs } : {}),
        ...(spec.kvEventsPort && host
          ? { kvEvents: { endpoint: `tcp://${host}:${spec.kvEventsPort}`, ...(spec.kvReplayPort ? { replayEndpoint: `tcp://${host}:${spec.kvReplayPort}` } : {}) } }
          : {}),
        ...(this.o.engineSecret ? { auth: 'replica-key' as const } : {}),
        fabric: r.fabric,
        gpuClass: r.gpuClass,
      });
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  private async publish(): Promise<void> {
    const list = this.endpoints();
    const key = JSON.stringify(list);
    if (key === this.published) return;
    try {
      await this.o.publisher.publish(list);
      this.published = key;
    } catch (e) {
      this.o.log?.warn({ err: (e as Error).message }, 'endpoint publication failed; retrying next pass');
    }
  }
}

const stateRank = (s: ReplicaStateName) => (s === 'starting' ? 0 : 1);

/** The host of an HTTP base URL as it goes into tcp://host:port ("[::1]" for IPv6); '' when unparsable. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

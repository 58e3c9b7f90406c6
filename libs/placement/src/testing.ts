import type { FleetView, ReconcilerNode, ShardCommandSink, ShardLaunchSpec, ShardReport, ShardStateName } from './reconciler/types';
import type { EngineKind, FleetNode, Model, NodeCondition, NodeLocation, Profile, Scaling } from './types';

/** Shape of a simulated node for tests and benchmarks. */
export interface NodeSpec {
  readonly id: string;
  readonly gpuClass?: string;
  readonly gpus?: number;
  /** Compute capability of every GPU ("9.0"). */
  readonly cc?: string;
  /** Fabric names; one HCA per NUMA node on each. */
  readonly fabrics?: readonly string[];
  /** A fabric the agent could not identify (docs/node-agent.md#discovery). */
  readonly unknownFabric?: boolean;
  readonly hcaActive?: boolean;
  readonly condition?: NodeCondition;
  readonly cordoned?: boolean;
  readonly numaNodes?: number;
  /** NVLink layout: one group of all GPUs, two halves, or none. */
  readonly nvlink?: 'all' | 'halves' | 'none';
  readonly engines?: readonly EngineKind[] | 'any';
  /** GPU indices reported failed. */
  readonly failedGpus?: readonly number[];
  readonly location?: NodeLocation;
  /** Default `10.0.0.<length of id>` (nodes with ids of one length share an address, as agents on one host do). */
  readonly mgmtAddr?: string;
  /** Every GPU's power limit and draw, W. */
  readonly powerLimitW?: number;
  readonly powerDrawW?: number;
}

/** A FleetNode from a compact spec (defaults: 8 × h100-80g, cc 9.0, fabric ib-a, 2 NUMA nodes, full NVLink, Ready). */
export function makeNode(s: NodeSpec): FleetNode {
  const count = s.gpus ?? 8;
  const numa = s.numaNodes ?? 2;
  const per = Math.max(1, Math.ceil(count / numa));
  const gpus = Array.from({ length: count }, (_, i) => ({
    index: i,
    gpuClass: s.gpuClass ?? 'h100-80g',
    computeCapability: s.cc ?? '9.0',
    numaNode: Math.floor(i / per),
    health: s.failedGpus?.includes(i) ? ('failed' as const) : ('ok' as const),
    ...(s.powerLimitW !== undefined ? { powerLimitW: s.powerLimitW } : {}),
    ...(s.powerDrawW !== undefined ? { powerDrawW: s.powerDrawW } : {}),
  }));
  const fabricNames = s.fabrics ?? ['ib-a'];
  const hcas = fabricNames.flatMap((_f, fi) =>
    Array.from({ length: numa }, (_, k) => ({ name: `mlx5_${fi * numa + k}`, numaNode: k, active: s.hcaActive ?? true })),
  );
  const fabrics = fabricNames.map((name, fi) => ({
    name: s.unknownFabric ? 'unknown' : name,
    hcas: Array.from({ length: numa }, (_, k) => `mlx5_${fi * numa + k}`),
    known: !s.unknownFabric,
  }));
  const all = gpus.map((g) => g.index);
  const nvlinkGroups = s.nvlink === 'none' ? [] : s.nvlink === 'halves' ? [all.slice(0, per), all.slice(per)].filter((g) => g.length) : [all];
  return {
    id: s.id,
    mgmtAddr: s.mgmtAddr ?? `10.0.0.${s.id.length}`,
    condition: s.condition ?? 'ready',
    cordoned: s.cordoned ?? false,
    gpus,
    hcas,
    fabrics,
    nvlinkGroups: count ? nvlinkGroups : [],
    engines: s.engines ?? 'any',
    ...(s.location ? { location: s.location } : {}),
  };
}

/** A profile with defaults (h100-80g, vllm, tp 1, one node). */
export function makeProfile(p: Partial<Profile> & { name?: string }): Profile {
  const tp = p.tp ?? 1;
  const pp = p.pp ?? 1;
  const nodes = p.nodes ?? 1;
  return {
    name: p.name ?? 'default',
    gpuClass: p.gpuClass ?? 'h100-80g',
    engine: p.engine ?? 'vllm',
    tp,
    pp,
    nodes,
    gpusPerNode: p.gpusPerNode ?? (tp * pp) / nodes,
    args: p.args ?? [],
    env: p.env ?? {},
    weight: p.weight ?? 100,
    priority: p.priority ?? 0,
    startupTimeoutMs: p.startupTimeoutMs ?? 1_200_000,
    launchMode: p.launchMode,
    ...(p.maxNumSeqs !== undefined ? { maxNumSeqs: p.maxNumSeqs } : {}),
    ...(p.kvEvents !== undefined ? { kvEvents: p.kvEvents } : {}),
    ...(p.schedulingPolicy !== undefined ? { schedulingPolicy: p.schedulingPolicy } : {}),
  };
}

/** A model with defaults (always on, min 1 max 1). Profiles are sorted by priority as the catalog does. */
export function makeModel(
  name: string,
  profiles: ReadonlyArray<Partial<Profile>>,
  scaling: Partial<Scaling> = {},
  extra: Pick<Model, 'capacityClass' | 'project' | 'keepWithin'> = {},
): Model {
  return {
    ...extra,
    name,
    aliases: [],
    source: `/models/${name}`,
    profiles: profiles.map((p, i) => makeProfile({ name: `p${i}`, ...p })).sort((a, b) => b.priority - a.priority),
    scaling: { min: 1, max: 1, idleTimeoutMs: 0, targetWaitingPerReplica: 0, ...scaling },
    fallbacks: [],
  };
}

export interface SimCommand {
  readonly kind: 'start' | 'drain' | 'stop';
  readonly nodeId: string;
  readonly shardId: string;
  readonly token: number;
  /** DrainShard's timeout, ms. */
  readonly timeoutMs?: number;
}

/**
 * An in-memory fleet that obeys shard commands the way agents behind
 * inventory do (idempotent by shard id, refusing a stale fencing token,
 * refusing nodes that are not connected), for driving the reconciler in
 * tests and benchmarks. Shards move on only when the test says so.
 */
export class SimFleet implements ShardCommandSink {
  readonly nodes = new Map<string, ReconcilerNode>();
  readonly shards = new Map<string, ShardReport>();
  readonly commands: SimCommand[] = [];
  private highestToken = 0;

  constructor(specs: readonly NodeSpec[] = []) {
    for (const s of specs) this.addNode(s);
  }

  addNode(s: NodeSpec, draining = false): void {
    this.nodes.set(s.id, { ...makeNode(s), draining });
  }

  setNode(id: string, patch: Partial<ReconcilerNode>): void {
    this.nodes.set(id, { ...this.nodes.get(id)!, ...patch });
  }

  view(): FleetView {
    return { nodes: [...this.nodes.values()], shards: [...this.shards.values()] };
  }

  private check(nodeId: string, token: number): void {
    if (token < this.highestToken) throw new Error(`stale fencing token ${token} < ${this.highestToken}`);
    this.highestToken = token;
    const n = this.nodes.get(nodeId);
    if (!n) throw new Error(`unknown node ${nodeId}`);
    if (n.condition !== 'ready') throw new Error(`node ${nodeId} has no live stream`);
  }

  async start(nodeId: string, spec: ShardLaunchSpec, token: number): Promise<void> {
    this.check(nodeId, token);
    this.commands.push({ kind: 'start', nodeId, shardId: spec.shardId, token });
    if (!this.shards.has(spec.shardId)) this.put(nodeId, spec, 'starting');
  }

  async drain(nodeId: string, shardId: string, _reason: string, timeoutMs: number, token: number): Promise<void> {
    this.check(nodeId, token);
    this.commands.push({ kind: 'drain', nodeId, shardId, token, timeoutMs });
    this.setState(shardId, 'draining');
  }

  async stop(nodeId: string, shardId: string, _reason: string, token: number): Promise<void> {
    this.check(nodeId, token);
    this.commands.push({ kind: 'stop', nodeId, shardId, token });
    if (this.shards.has(shardId)) this.setState(shardId, 'stopped');
  }

  /** Reports a shard (e.g. one running since before a restart). */
  put(nodeId: string, spec: ShardLaunchSpec | undefined, state: ShardStateName, shardId = spec?.shardId ?? 'x', replicaId = spec?.replicaId ?? 'x'): void {
    this.shards.set(shardId, { nodeId, shardId, replicaId, state, message: '', endpoint: '', spec, adopted: false });
  }

  setState(shardId: string, state: ShardStateName, message = ''): void {
    const s = this.shards.get(shardId)!;
    const n = this.nodes.get(s.nodeId)!;
    const endpoint = state === 'ready' && s.spec?.rank === 0 ? `http://${n.mgmtAddr}:${s.spec.httpPort}` : s.endpoint;
    this.shards.set(shardId, { ...s, state, message, endpoint, drained: false });
  }

  /** A DRAINING shard reports that nothing is left in flight (ShardStatus.drained). */
  drained(shardId: string): void {
    const s = this.shards.get(shardId)!;
    this.shards.set(shardId, { ...s, message: 'drained: no requests in flight', drained: true });
  }

  /** Every starting shard becomes ready. */
  readyAll(): void {
    for (const s of this.shards.values()) if (s.state === 'starting' || s.state === 'pending' || s.state === 'loading') this.setState(s.shardId, 'ready');
  }

  /** Node lost with its shards: inventory keeps listing them until forgotten. */
  lose(nodeId: string): void {
    this.setNode(nodeId, { condition: 'lost' });
  }

  /** Shards on the node running and not terminal. */
  live(nodeId?: string): ShardReport[] {
    return [...this.shards.values()].filter((s) => (!nodeId || s.nodeId === nodeId) && s.state !== 'stopped' && s.state !== 'failed');
  }
}

import { shardStateName, type agentV1 } from '@llmgw/contracts';
import {
  ENGINE_KINDS,
  type EngineKind,
  FACILITY_LEVELS,
  type NodeLocation,
  type FleetView,
  type GpuHealthState,
  type ReconcilerNode,
  type ShardLaunchSpec,
  type ShardReport,
  type WeightsMirror,
} from '@llmgw/placement';

/**
 * What the scheduler reads of one inventory node (inventory.v1.Node__Output,
 * typed structurally so it holds across additive proto changes).
 */
export interface InventoryNodeLike {
  info: agentV1.NodeInfo__Output | null;
  connectivity: string;
  gpuHealth: readonly agentV1.GpuHealthReport__Output[];
  shards: readonly agentV1.ShardStatus__Output[];
  /** inventory.v1.NodeIntent: NODE_INTENT_NONE | _CORDONED | _DRAINING. */
  intent?: string;
  /** With _DRAINING: the operator's per-replica drain timeout, ms (`ctl drain --replica-timeout`); 0 = default. */
  intentDrainTimeoutMs?: number | string;
}

const HEALTH: Record<string, GpuHealthState> = { GPU_HEALTH_OK: 'ok', GPU_HEALTH_DEGRADED: 'degraded', GPU_HEALTH_FAILED: 'failed' };

const isEngine = (e: string): e is EngineKind => (ENGINE_KINDS as readonly string[]).includes(e);

/** The fields agent.v1.ShardSpec and ShardLaunchSpec name and type alike, copied from either. */
type SameFields =
  | 'shardId'
  | 'replicaId'
  | 'model'
  | 'profile'
  | 'rank'
  | 'leaderAddr'
  | 'leaderPort'
  | 'fabric'
  | 'httpPort'
  | 'modelPath'
  | 'startupTimeoutMs'
  | 'servedModelName';
function sameFields(s: Pick<ShardLaunchSpec, SameFields>): Pick<ShardLaunchSpec, SameFields> {
  const { shardId, replicaId, model, profile, rank, leaderAddr, leaderPort, fabric, httpPort, modelPath, startupTimeoutMs, servedModelName } = s;
  return { shardId, replicaId, model, profile, rank, leaderAddr, leaderPort, fabric, httpPort, modelPath, startupTimeoutMs, servedModelName };
}

/** agent.v1.ShardSpec → the reconciler's spec; undefined when it cannot be one of ours (unknown engine). */
export function specFromWire(s: agentV1.ShardSpec__Output | null | undefined): ShardLaunchSpec | undefined {
  if (!s || !s.shardId || !isEngine(s.engine)) return undefined;
  return {
    ...sameFields(s),
    engine: s.engine,
    nnodes: Math.max(1, s.nnodes),
    gpuIndices: s.gpuIndices,
    hcas: s.hcas,
    args: s.args,
    env: s.env,
    tp: s.tensorParallel,
    pp: s.pipelineParallel,
    ...(s.launchMode === 'mp' || s.launchMode === 'ray' ? { launchMode: s.launchMode } : {}),
    ...(s.maxNumSeqs ? { maxNumSeqs: s.maxNumSeqs } : {}),
    ...(s.schedulingPolicy === 'priority' || s.schedulingPolicy === 'fcfs' ? { schedulingPolicy: s.schedulingPolicy } : {}),
    ...(s.kvEventsPort ? { kvEventsPort: s.kvEventsPort } : {}),
    ...(s.kvReplayPort ? { kvReplayPort: s.kvReplayPort } : {}),
    ...(mirrorFromWire(s.weights) ? { weights: mirrorFromWire(s.weights) } : {}),
    ...(s.adapters?.length
      ? {
          adapters: s.adapters.map((a) => ({
            name: a.name,
            scale: a.scale,
            ...(mirrorFromWire(a.weights) ? { weights: mirrorFromWire(a.weights) } : { path: a.path }),
          })),
        }
      : {}),
    ...(s.maxLoras ? { maxLoras: s.maxLoras } : {}),
    // api_key is never read back from a report: agents do not echo it, and the reconciler derives it again.
  };
}

/** The reconciler's spec → agent.v1.ShardSpec. */
export function specToWire(s: ShardLaunchSpec): agentV1.ShardSpec {
  return {
    ...sameFields(s),
    engine: s.engine,
    nnodes: s.nnodes,
    gpuIndices: [...s.gpuIndices],
    hcas: [...s.hcas],
    args: [...s.args],
    env: { ...s.env },
    tensorParallel: s.tp,
    pipelineParallel: s.pp,
    launchMode: s.launchMode ?? '',
    maxNumSeqs: s.maxNumSeqs ?? 0,
    schedulingPolicy: s.schedulingPolicy ?? '',
    kvEventsPort: s.kvEventsPort ?? 0,
    kvReplayPort: s.kvReplayPort ?? 0,
    apiKey: s.apiKey ?? '',
    weights: s.weights ? mirrorToWire(s.weights) : null,
    adapters: (s.adapters ?? []).map((a) => ({ name: a.name, path: a.path ?? '', scale: a.scale, weights: a.weights ? mirrorToWire(a.weights) : null })),
    maxLoras: s.maxLoras ?? 0,
  };
}

function mirrorToWire(w: WeightsMirror): agentV1.WeightsSource {
  return { baseUrl: w.baseUrl, manifest: w.manifest, credentialsFile: w.credentialsFile ?? '', credentialsEnv: w.credentialsEnv ?? '' };
}

function mirrorFromWire(w: agentV1.WeightsSource__Output | null | undefined): WeightsMirror | undefined {
  if (!w?.baseUrl) return undefined;
  return {
    baseUrl: w.baseUrl,
    manifest: w.manifest,
    ...(w.credentialsFile ? { credentialsFile: w.credentialsFile } : {}),
    ...(w.credentialsEnv ? { credentialsEnv: w.credentialsEnv } : {}),
  };
}

/** One inventory node → the placement view of it, or undefined without NodeInfo. */
export function nodeFromWire(n: InventoryNodeLike): ReconcilerNode | undefined {
  const info = n.info;
  if (!info?.nodeId) return undefined;
  const health = new Map(n.gpuHealth.map((h) => [h.index, HEALTH[h.health] ?? 'ok']));
  const draw = new Map(n.gpuHealth.filter((h) => h.powerDrawWatts > 0).map((h) => [h.index, h.powerDrawWatts]));
  const location = locationOf(info.labels ?? {});
  const engines = info.simulated ? ('any' as const) : (info.versions?.engines ?? []).map((e) => e.engine).filter(isEngine);
  return {
    id: info.nodeId,
    mgmtAddr: info.mgmtAddr || info.hostname,
    condition: n.connectivity === 'CONNECTIVITY_CONNECTED' ? 'ready' : n.connectivity === 'CONNECTIVITY_LOST' ? 'lost' : 'unreachable',
    cordoned: n.intent === 'NODE_INTENT_CORDONED' || n.intent === 'NODE_INTENT_DRAINING',
    draining: n.intent === 'NODE_INTENT_DRAINING',
    ...(n.intent === 'NODE_INTENT_DRAINING' && Number(n.intentDrainTimeoutMs) > 0 ? { drainTimeoutMs: Number(n.intentDrainTimeoutMs) } : {}),
    gpus: info.gpus.map((g) => ({
      index: g.index,
      gpuClass: g.gpuClass,
      computeCapability: g.computeCapability,
      numaNode: g.numaNode,
      health: health.get(g.index) ?? 'ok',
      ...(g.powerLimitWatts > 0 ? { powerLimitW: g.powerLimitWatts } : {}),
      ...(draw.has(g.index) ? { powerDrawW: draw.get(g.index)! } : {}),
    })),
    hcas: info.hcas.map((h) => ({ name: h.name, numaNode: h.numaNode, active: h.ports.some((p) => p.state === 'PORT_STATE_ACTIVE') })),
    fabrics: info.fabrics.map((f) => ({
      name: f.fabric,
      hcas: f.hcas,
      known: f.source !== 'FABRIC_SOURCE_UNKNOWN' && f.fabric !== '' && f.fabric !== 'unknown',
    })),
    nvlinkGroups: (info.topology?.nvlinkGroups ?? []).map((g) => g.gpuIndices),
    engines,
    ...(location ? { location } : {}),
  };
}

/** The facility labels among an agent's `labels` (site, room, rack, pdu, nvlink_domain); undefined when none is set. */
export function locationOf(labels: Readonly<Record<string, string>>): NodeLocation | undefined {
  const out: Record<string, string> = {};
  for (const k of FACILITY_LEVELS) if (labels[k]) out[k] = labels[k];
  return Object.keys(out).length ? (out as NodeLocation) : undefined;
}

/** One reported shard → the reconciler's report. */
export function shardFromWire(nodeId: string, s: agentV1.ShardStatus__Output): ShardReport {
  const spec = specFromWire(s.spec);
  return {
    nodeId,
    shardId: s.shardId,
    replicaId: s.replicaId || spec?.replicaId || '',
    state: shardStateName(s.state) ?? 'pending',
    message: s.message,
    endpoint: s.endpoint,
    ...(spec ? { spec } : {}),
    adopted: s.adopted,
    drained: !!s.drained,
  };
}

/** Inventory's fleet → the reconciler's FleetView. */
export function fleetFromWire(nodes: Iterable<InventoryNodeLike>): FleetView {
  const out: ReconcilerNode[] = [];
  const shards: ShardReport[] = [];
  for (const n of nodes) {
    const node = nodeFromWire(n);
    if (!node) continue;
    out.push(node);
    for (const s of n.shards) shards.push(shardFromWire(node.id, s));
  }
  return { nodes: out, shards };
}

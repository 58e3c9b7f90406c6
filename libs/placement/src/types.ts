/**
 * The placement domain (docs/placement.md): the fleet as placement sees it,
 * the catalog, and what a placement decision and its explanation look like.
 * Plain readonly data; the placement-scheduler maps the wire types of
 * inventory and the YAML catalog into these.
 */

/** Engine kinds a profile can name. `sim` is llmgw's simulated engine. */
import type { EngineKind } from '@llmgw/contracts';
export { ENGINE_KINDS, type EngineKind } from '@llmgw/contracts';

/** A node's connectivity as inventory reports it. Operator intent is separate (`FleetNode.cordoned`). */
export type NodeCondition = 'ready' | 'unreachable' | 'lost';

export type GpuHealthState = 'ok' | 'degraded' | 'failed';

/** One GPU of a node. */
export interface FleetGpu {
  /** The driver index (CUDA_VISIBLE_DEVICES value); unique per node. */
  readonly index: number;
  /** "h100-80g": every GPU of one replica has the same class. */
  readonly gpuClass: string;
  /** "major.minor" ("9.0"); empty when unknown (then validations needing it fail). */
  readonly computeCapability: string;
  /** NUMA node; -1 when unknown. */
  readonly numaNode: number;
  /** A failed GPU is never placed on; a degraded one only when nothing better is free. */
  readonly health: GpuHealthState;
  /** The GPU's software power limit, W (nvidia-smi `power.limit`, reported by the agent); absent when unknown (power caps use `facility.default_gpu_watts`). */
  readonly powerLimitW?: number;
  /** The GPU's power draw when last sampled, W; absent when the agent does not report it. */
  readonly powerDrawW?: number;
}

/** One HCA and whether any of its ports is ACTIVE. */
export interface FleetHca {
  readonly name: string;
  /** NUMA node of the adapter; -1 when unknown. */
  readonly numaNode: number;
  readonly active: boolean;
}

/** A node's attachment to one fabric (a node may attach to several; a replica uses one). */
export interface FleetFabric {
  /** Fabric name ("ib-a"). */
  readonly name: string;
  /** HCA names on this fabric (FleetHca.name). */
  readonly hcas: readonly string[];
  /** False when the agent could not determine the fabric (docs/node-agent.md#discovery): never multi-node. */
  readonly known: boolean;
}

/** One node as placement sees it. */
export interface FleetNode {
  readonly id: string;
  /** Management address engines are reached on and NCCL bootstraps over. */
  readonly mgmtAddr: string;
  readonly condition: NodeCondition;
  /** Cordoned (or draining) by an operator: no new shard lands here; what runs stays. */
  readonly cordoned: boolean;
  /** Ordered by index. */
  readonly gpus: readonly FleetGpu[];
  readonly hcas: readonly FleetHca[];
  /** Empty: no IB, single-node placement only. */
  readonly fabrics: readonly FleetFabric[];
  /** GPU index sets fully connected by NVLink; empty when none or unknown. */
  readonly nvlinkGroups: readonly (readonly number[])[];
  /** Engines the node can launch; `'any'` for simulated nodes (every engine runs as a sim-engine). */
  readonly engines: readonly EngineKind[] | 'any';
  /** Where the node is (the agent's `location` config); absent or partial when not configured. */
  readonly location?: NodeLocation;
}

/** A node's place in the facility (docs/placement.md "Facility"); every level optional. */
export interface NodeLocation {
  readonly site?: string;
  readonly room?: string;
  readonly rack?: string;
  readonly pdu?: string;
  readonly nvlink_domain?: string;
}

/** The facility levels labels, holds, budgets and `keep_within` name. */
export type FacilityLevel = keyof NodeLocation;
export const FACILITY_LEVELS: readonly FacilityLevel[] = ['site', 'room', 'rack', 'pdu', 'nvlink_domain'];

/** Capacity classes, lowest first (docs/placement.md "Capacity classes"). */
export type CapacityClass = 'opportunistic' | 'standard' | 'critical';
export const CAPACITY_CLASSES: readonly CapacityClass[] = ['opportunistic', 'standard', 'critical'];

/** GPUs already held on each node (by running or starting shards), by node id. */
export type Allocation = ReadonlyMap<string, ReadonlySet<number>>;

/**
 * Scaling bounds (upstream notes): min 0 max 0, or no `scaling` stanza, is
 * off; min 0 max ≥ 1 is on demand; min ≥ 1 keeps min replicas running.
 */
export interface Scaling {
  readonly min: number;
  readonly max: number;
  /** Replicas above `min` stop after this long without requests, ms; 0 = never. */
  readonly idleTimeoutMs: number;
  /** Autoscaler target for engine-queued requests per replica; 0 = unset. */
  readonly targetWaitingPerReplica: number;
}

export type ScalingMode = 'off' | 'on-demand' | 'always-on';

/** One launch profile's capacity as applied from its measured capacity profile (docs/capacity.md "Applying a profile"). */
export interface AppliedProfileCapacity {
  readonly profile: string;
  /** The router's weight for its replicas, replacing the catalog profile's `weight`. */
  readonly weight: number;
  /** Admission's target waiting per replica for its replicas (endpoint record `target_waiting`). */
  readonly targetWaitingPerReplica: number;
  /** What it came from. */
  readonly maxConcurrencyAtSlo: number;
  readonly gpuClass: string;
}

/** What `ctl capacity apply` set for one model; kept beside the operator's replica target. */
export interface AppliedCapacity {
  readonly profiles: readonly AppliedProfileCapacity[];
  /** The autoscaler's target, replacing the catalog's `scaling.target_waiting_per_replica`. */
  readonly targetWaitingPerReplica: number;
  readonly appliedAtMs: number;
  readonly appliedBy: string;
}

export function scalingMode(s: Scaling): ScalingMode {
  if (s.min > 0) return 'always-on';
  return s.max > 0 ? 'on-demand' : 'off';
}

/** How an engine is launched: what a profile sets and every shard of its replicas carries. */
export interface EngineLaunch {
  readonly tp: number;
  readonly pp: number;
  /** Extra engine arguments, verbatim. */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** STARTING+LOADING longer than this fails the replica, ms. */
  readonly startupTimeoutMs: number;
  /** vLLM multi-node launch path ("mp" | "ray"); undefined = the engine's default. */
  readonly launchMode?: 'mp' | 'ray';
}

/**
 * What the profile declares its engine supports (catalog `max_num_seqs`,
 * `kv_events`, `scheduling_policy`); undefined = the engine's default
 * (`engineContract`, libs/placement engines.ts).
 */
export interface ProfileContract {
  readonly maxNumSeqs?: number;
  readonly kvEvents?: boolean;
  readonly schedulingPolicy?: 'fcfs' | 'priority';
}

/** How a model runs on one GPU class (a catalog profile, docs/placement.md#profile-keys). */
export interface Profile extends EngineLaunch, ProfileContract {
  /** Unique within the model. */
  readonly name: string;
  readonly gpuClass: string;
  readonly engine: EngineKind;
  readonly gpusPerNode: number;
  /** Nodes per replica; > 1 needs one fabric with ACTIVE HCAs on every node. */
  readonly nodes: number;
  /** Capacity weight the router uses. */
  readonly weight: number;
  /** Higher is tried first. */
  readonly priority: number;
}

/** One catalog model (docs/placement.md#model-keys). */
export interface Model {
  /** What clients send as `model`. */
  readonly name: string;
  readonly aliases: readonly string[];
  /** Weights path or hub id. */
  readonly source: string;
  /** Highest priority first (ties keep catalog order). */
  readonly profiles: readonly Profile[];
  readonly scaling: Scaling;
  /** Other catalog model names, tried in order when this one has no endpoint. */
  readonly fallbacks: readonly string[];
  /** The router's routing profile for this model; undefined = the router's default. */
  readonly routingProfile?: string;
  /** Who may preempt whom; undefined = standard. */
  readonly capacityClass?: CapacityClass;
  /** The catalog project whose quota the model's GPUs count against; undefined = none. */
  readonly project?: string;
  /** Every node of one replica shares this facility label (a hard constraint); undefined = none. */
  readonly keepWithin?: FacilityLevel;
  /** The catalog's `weights:` mirror, resolved: the agent fetches it before launch (docs/models.md). */
  readonly weights?: WeightsMirror;
  /** The catalog's LoRA adapters, resolved (docs/models.md, "Adapters"). */
  readonly adapters?: readonly LoraAdapterLaunch[];
  /** vLLM's --max-loras (the catalog's max_loaded_adapters). */
  readonly maxLoadedAdapters?: number;
}

/** One LoRA adapter as the agent gets it: a path on the node, or a mirror it fetches. */
export interface LoraAdapterLaunch {
  readonly name: string;
  readonly path?: string;
  readonly weights?: WeightsMirror;
  readonly scale: number;
}

/** An HTTP(S) mirror of a model's files; credentials only by where the agent reads them. */
export interface WeightsMirror {
  readonly baseUrl: string;
  readonly manifest: string;
  readonly credentialsFile?: string;
  readonly credentialsEnv?: string;
}

/** Why a candidate node or pool was not used: the first hard constraint that failed (docs/placement.md, "Placement"). */
export type RejectReason =
  | 'none'
  | 'gpu-class'
  | 'insufficient-gpus'
  | 'node-not-ready'
  | 'node-cordoned'
  | 'no-fabric'
  | 'hca-not-active'
  | 'engine-validation'
  | 'engine-missing'
  | 'not-enough-nodes'
  | 'at-max-replicas'
  | 'quota-limit'
  | 'facility-held'
  | 'power-cap'
  | 'keep-within';

export interface NodeCandidate {
  readonly nodeId: string;
  readonly reason: RejectReason;
  readonly detail: string;
  /** Free healthy GPUs of the profile's class. */
  readonly freeGpus: number;
  /** Placement score among eligible nodes (higher preferred); 0 when rejected. */
  readonly score: number;
}

export interface PoolCandidate {
  /** "<gpu_class>" or "<gpu_class>/<fabric>". */
  readonly pool: string;
  readonly gpuClass: string;
  /** Empty for single-node profiles. */
  readonly fabric: string;
  readonly reason: RejectReason;
  readonly detail: string;
  /** Ordered: eligible by score, then rejected by node id. */
  readonly nodes: readonly NodeCandidate[];
}

export interface ProfileExplanation {
  readonly profile: string;
  readonly priority: number;
  readonly gpuClass: string;
  readonly nodes: number;
  readonly gpusPerNode: number;
  /** In the order tried. */
  readonly pools: readonly PoolCandidate[];
  /** Set when a profile-level constraint rejected it before any pool. */
  readonly reason: RejectReason;
  readonly detail: string;
}

/** Where one shard goes. */
export interface ShardPlacement {
  readonly nodeId: string;
  /** 0 = leader. */
  readonly rank: number;
  readonly gpuIndices: readonly number[];
  /** HCAs of the chosen fabric on that node (NUMA-near first); empty for single-node. */
  readonly hcas: readonly string[];
}

export interface PlacementDecision {
  readonly model: string;
  readonly profile: Profile;
  /** Empty for single-node replicas. */
  readonly fabric: string;
  readonly gpuClass: string;
  /** "<gpu_class>" or "<gpu_class>/<fabric>": what the router sees as the endpoint's pool. */
  readonly pool: string;
  /** Ordered by rank. */
  readonly shards: readonly ShardPlacement[];
}

export interface Explanation {
  readonly model: string;
  readonly schedulable: boolean;
  readonly decision?: PlacementDecision;
  /** Every profile considered, in priority order. */
  readonly profiles: readonly ProfileExplanation[];
}

/** Where a model's existing replicas run: spreading prefers nodes and fabrics absent here. */
export interface ModelFootprint {
  /** Live (not stopping) replicas of the model. */
  readonly replicas: number;
  /** Node ids hosting a shard of the model. */
  readonly nodes: ReadonlySet<string>;
  /** Fabrics (or "node:<id>" for replicas on IB-less nodes) hosting one. */
  readonly fabrics: ReadonlySet<string>;
}

export const EMPTY_FOOTPRINT: ModelFootprint = { replicas: 0, nodes: new Set(), fabrics: new Set() };

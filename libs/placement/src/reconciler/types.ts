import type { EndpointInfo, ShardStateName } from '@llmgw/contracts';
import type { EngineLaunch, EngineKind, FleetNode, Profile, WeightsMirror } from '../types';

/** A shard's state as the agent reports it (docs/node-agent.md#shard-states), and which states are terminal: libs/contracts shard-states.ts. */
export { TERMINAL_SHARD_STATES, type ShardStateName } from '@llmgw/contracts';

/**
 * Everything an agent needs to launch one shard (the placement-scheduler's
 * side of agent.v1.ShardSpec). Built by the reconciler, echoed back by the
 * agent in every report that carries a spec.
 */
export interface ShardLaunchSpec extends EngineLaunch {
  /** "<replica_id>-r<rank>": the idempotency key of every command. */
  readonly shardId: string;
  readonly replicaId: string;
  readonly model: string;
  readonly profile: string;
  readonly engine: EngineKind;
  readonly rank: number;
  readonly nnodes: number;
  /** Rank 0's management address. */
  readonly leaderAddr: string;
  /** Rank 0's rendezvous port; 0 for single-node replicas. */
  readonly leaderPort: number;
  readonly gpuIndices: readonly number[];
  /** The chosen fabric's HCAs; empty for single-node. */
  readonly hcas: readonly string[];
  /** Empty for single-node. */
  readonly fabric: string;
  readonly httpPort: number;
  /** Catalog `source`. */
  readonly modelPath: string;
  /** The name the engine serves (the catalog model name). */
  readonly servedModelName: string;
  /** The profile's declared batch slots (engineContract); absent in specs from before the field. */
  readonly maxNumSeqs?: number;
  readonly schedulingPolicy?: 'fcfs' | 'priority';
  /** KV-event PUB and replay ports on the leader's address (rank 0); 0 or absent = none. */
  readonly kvEventsPort?: number;
  readonly kvReplayPort?: number;
  /**
   * The replica's engine secret (libs/endpoints engine-secret.ts). Only on
   * specs the reconciler sends; reports never carry it back.
   */
  readonly apiKey?: string;
  /** The model's weights mirror (the agent fetches it before launch); absent = modelPath as is. */
  readonly weights?: WeightsMirror;
}

/** One shard as a node reports it (inventory's view of the fleet). */
export interface ShardReport {
  readonly nodeId: string;
  readonly shardId: string;
  readonly replicaId: string;
  readonly state: ShardStateName;
  readonly message: string;
  /** Rank 0's HTTP base URL once it has one. */
  readonly endpoint: string;
  /** The spec it runs with, when the agent sent it (always at registration). */
  readonly spec?: ShardLaunchSpec;
  /** Adopted by the agent from a previous agent process. */
  readonly adopted: boolean;
  /** DRAINING and done (nothing in flight, or the agent's drain timeout passed): it may be stopped now. */
  readonly drained?: boolean;
}

/** A node plus the operator's drain intent. */
export interface ReconcilerNode extends FleetNode {
  /** Cordoned and its replicas are to be moved away, one at a time. */
  readonly draining: boolean;
  /** With `draining`: how long each replica moved off it may drain before it is stopped, ms (`ctl drain --replica-timeout`); 0/absent = drainTimeoutMs. */
  readonly drainTimeoutMs?: number;
}

/** The actual state: inventory's fleet at one moment. */
export interface FleetView {
  readonly nodes: readonly ReconcilerNode[];
  readonly shards: readonly ShardReport[];
}

/**
 * Where shard commands go (inventory's SendShardCommand). Every command
 * carries the caller's fencing token so inventory can refuse a deposed
 * leader's. A rejected or undeliverable command throws.
 */
export interface ShardCommandSink {
  start(nodeId: string, spec: ShardLaunchSpec, fencingToken: number): Promise<void>;
  drain(nodeId: string, shardId: string, reason: string, timeoutMs: number, fencingToken: number): Promise<void>;
  stop(nodeId: string, shardId: string, reason: string, fencingToken: number): Promise<void>;
}

/**
 * One Ready replica as routers and admission see it: the endpoint record v1
 * (`EndpointInfo`, docs/wire-contracts.md) with what placement knows besides,
 * `fabric` and `gpuClass`, which readers ignore.
 */
export interface PlacedEndpoint extends EndpointInfo {
  readonly fabric: string;
  readonly gpuClass: string;
}

/** The former name of PlacedEndpoint, kept for code written against it; new code names PlacedEndpoint (or EndpointInfo). */
export type PublishedEndpoint = PlacedEndpoint;

/** Where Ready replicas are published; called with the whole set whenever it changes. */
export interface EndpointPublisher {
  publish(endpoints: readonly PlacedEndpoint[]): Promise<void>;
}

export type ReplicaStateName = 'starting' | 'ready' | 'draining' | 'stopping' | 'failed';

export interface ReplicaShardView {
  readonly shardId: string;
  readonly nodeId: string;
  readonly rank: number;
  readonly gpuIndices: readonly number[];
  /** 'unreported' until the agent first reports it. */
  readonly state: ShardStateName | 'unreported';
  readonly message: string;
}

/** A replica as ctl shows it. */
export interface ReplicaView {
  readonly id: string;
  readonly model: string;
  readonly profile: Profile;
  readonly fabric: string;
  readonly gpuClass: string;
  readonly pool: string;
  readonly state: ReplicaStateName;
  readonly endpoint: string;
  readonly shards: readonly ReplicaShardView[];
  readonly createdAtMs: number;
  readonly readyAtMs: number;
  readonly adopted: boolean;
  readonly message: string;
}

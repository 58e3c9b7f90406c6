import type { Profile } from '../types';
import type { ReplicaStateName, ShardLaunchSpec, ShardStateName } from './types';

/** What the reconciler keeps per shard and per replica (rebuilt from the fleet by a new leader). */
export interface ShardRec {
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

export interface ReplicaRec {
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

export interface Backoff {
  failures: number;
  notBeforeMs: number;
}

export interface OrphanStop {
  nodeId: string;
  shardId: string;
  token: number;
}

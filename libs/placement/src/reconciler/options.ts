import type { PolicyConfig } from '../policy';
import type { Model } from '../types';
import type { EndpointPublisher, ShardCommandSink } from './types';

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
  /**
   * Projects, quotas and the facility (docs/placement.md, "Sharing a
   * cluster"); absent: none, while capacity classes, preemption and
   * defragmentation still apply.
   */
  policy?: PolicyConfig;
  /**
   * The autoscaler (docs/capacity.md): given the replicas the catalog,
   * targets and on-demand use want (`base`), the count to run; kept within
   * the model's max by the caller. Absent: `base`.
   */
  autoscale?: (model: Model, base: number, max: number) => number;
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

/** The options with their defaults filled in. */
export type ResolvedOptions = Required<Omit<ReconcilerOptions, 'log' | 'onPass' | 'engineSecret' | 'policy' | 'autoscale'>> &
  Pick<ReconcilerOptions, 'log' | 'onPass' | 'engineSecret' | 'policy' | 'autoscale'>;

export function resolveOptions(opts: ReconcilerOptions): ResolvedOptions {
  return {
    portRange: [20000, 20999],
    reportGraceMs: 30_000,
    drainTimeoutMs: 30_000,
    backoffBaseMs: 2_000,
    backoffMaxMs: 120_000,
    orphanStopConcurrency: 16,
    ...opts,
  };
}

export const NOT_LEADER: PassResult = {
  leader: false,
  placed: 0,
  failed: 0,
  drained: 0,
  stopped: 0,
  orphansStopped: 0,
  orphansDeferred: 0,
  adopted: 0,
  unschedulable: [],
};

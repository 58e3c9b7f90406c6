import type { agentV1 } from '@llmgw/contracts';
import { type Shard, withoutSecret } from './shard';
import type { ShardRecord } from './state-store';

/** What the agent reports about a shard. */
export function shardStatus(s: Shard, withSpec: boolean): agentV1.ShardStatus__Output {
  return {
    shardId: s.spec.shardId,
    replicaId: s.spec.replicaId,
    state: s.state,
    stateSinceMs: s.since,
    message: s.message,
    exitCode: s.exitCode,
    exited: s.exited,
    pid: s.exited ? 0 : s.pid,
    endpoint: s.state === 'SHARD_STATE_PENDING' ? '' : (s.cmd.endpoint ?? ''),
    // The engine secret stays on this node: reports carry the spec without it.
    spec: withSpec ? withoutSecret(s.spec) : null,
    adopted: s.adopted,
    pgid: s.exited ? 0 : s.pgid,
    restarts: s.restarts,
    drained: s.state === 'SHARD_STATE_DRAINING' && s.drained,
    download: s.state === 'SHARD_STATE_DOWNLOADING' ? s.download : null,
  };
}

/** What the state directory keeps about a shard, for the next agent to adopt it. */
export function shardRecord(s: Shard): ShardRecord {
  return {
    version: 1,
    spec: s.spec,
    state: s.state,
    stateSinceMs: s.since,
    message: s.message,
    pid: s.pid,
    pgid: s.pgid,
    startTime: s.startTime,
    launchedAtMs: s.launchedAtMs,
    argv: s.cmd.argv,
    cleanup: s.cmd.cleanup,
    restarts: s.restarts,
  };
}

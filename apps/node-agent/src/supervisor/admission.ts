import type { agentV1 } from '@llmgw/contracts';
import type { Engine, EngineKind } from '../engines/engine';
import type { CommandOutcome, Shard, SupervisorOptions } from './shard';
import { SHARD_ID_PATTERN } from './state-store';

/**
 * StartShard's checks against the node and the live shards: the engine to run the
 * spec, or the rejection to answer with.
 */
export function admit(spec: agentV1.ShardSpec__Output, opts: SupervisorOptions, live: Shard[]): { engine: Engine } | { rejected: CommandOutcome } {
  const reject = (errorCode: string, message: string) => ({ rejected: { result: 'ACK_RESULT_REJECTED', errorCode, message } as CommandOutcome });
  if (!SHARD_ID_PATTERN.test(spec.shardId))
    return reject('LLMGW_ERR_INVALID_ARGUMENT', `shard_id ${JSON.stringify(spec.shardId)} must match ${SHARD_ID_PATTERN}`);
  const engine = opts.engines.get(spec.engine as EngineKind);
  if (!engine)
    return reject(
      'LLMGW_ERR_INVALID_ARGUMENT',
      `engine ${JSON.stringify(spec.engine)} is not configured on this node (configured: ${[...opts.engines.keys()].join(', ') || 'none'})`,
    );
  const problems = engine.validate(spec, opts.node);
  if (problems.length) return reject('LLMGW_ERR_INVALID_ARGUMENT', problems.join('; '));
  const busy = spec.gpuIndices.filter((g) => live.some((s) => s.spec.gpuIndices.includes(g)));
  if (busy.length)
    return reject(
      'LLMGW_ERR_FAILED_PRECONDITION',
      `GPUs ${busy.join(', ')} are in use by ${live
        .filter((s) => s.spec.gpuIndices.some((g) => busy.includes(g)))
        .map((s) => s.spec.shardId)
        .join(', ')}`,
    );
  if (spec.rank === 0 && live.some((s) => s.spec.rank === 0 && s.spec.httpPort === spec.httpPort))
    return reject('LLMGW_ERR_FAILED_PRECONDITION', `port ${spec.httpPort} is in use by another shard`);
  return { engine };
}

// Original file: llmgw/control/v1/control.proto

import type { ShardState as _llmgw_agent_v1_ShardState, ShardState__Output as _llmgw_agent_v1_ShardState__Output } from '../../../llmgw/agent/v1/ShardState';

export interface ReplicaShard {
  'shardId'?: (string);
  'nodeId'?: (string);
  'rank'?: (number);
  'gpuIndices'?: (number)[];
  'state'?: (_llmgw_agent_v1_ShardState);
  'message'?: (string);
}

export interface ReplicaShard__Output {
  'shardId': (string);
  'nodeId': (string);
  'rank': (number);
  'gpuIndices': (number)[];
  'state': (_llmgw_agent_v1_ShardState__Output);
  'message': (string);
}

// Original file: llmgw/inventory/v1/inventory.proto

import type { StartShard as _llmgw_agent_v1_StartShard, StartShard__Output as _llmgw_agent_v1_StartShard__Output } from '../../../llmgw/agent/v1/StartShard';
import type { StopShard as _llmgw_agent_v1_StopShard, StopShard__Output as _llmgw_agent_v1_StopShard__Output } from '../../../llmgw/agent/v1/StopShard';
import type { DrainShard as _llmgw_agent_v1_DrainShard, DrainShard__Output as _llmgw_agent_v1_DrainShard__Output } from '../../../llmgw/agent/v1/DrainShard';
import type { Long } from '@grpc/proto-loader';

export interface ShardCommandRequest {
  'nodeId'?: (string);
  'start'?: (_llmgw_agent_v1_StartShard | null);
  'stop'?: (_llmgw_agent_v1_StopShard | null);
  'drain'?: (_llmgw_agent_v1_DrainShard | null);
  'fencingToken'?: (number | string | Long);
  'command'?: "start"|"stop"|"drain";
}

export interface ShardCommandRequest__Output {
  'nodeId': (string);
  'start'?: (_llmgw_agent_v1_StartShard__Output | null);
  'stop'?: (_llmgw_agent_v1_StopShard__Output | null);
  'drain'?: (_llmgw_agent_v1_DrainShard__Output | null);
  'fencingToken': (number);
  'command'?: "start"|"stop"|"drain";
}

// Original file: llmgw/agent/v1/agent.proto

import type { StartShard as _llmgw_agent_v1_StartShard, StartShard__Output as _llmgw_agent_v1_StartShard__Output } from '../../../llmgw/agent/v1/StartShard';
import type { StopShard as _llmgw_agent_v1_StopShard, StopShard__Output as _llmgw_agent_v1_StopShard__Output } from '../../../llmgw/agent/v1/StopShard';
import type { DrainShard as _llmgw_agent_v1_DrainShard, DrainShard__Output as _llmgw_agent_v1_DrainShard__Output } from '../../../llmgw/agent/v1/DrainShard';
import type { Ack as _llmgw_agent_v1_Ack, Ack__Output as _llmgw_agent_v1_Ack__Output } from '../../../llmgw/agent/v1/Ack';
import type { LogsRequest as _llmgw_agent_v1_LogsRequest, LogsRequest__Output as _llmgw_agent_v1_LogsRequest__Output } from '../../../llmgw/agent/v1/LogsRequest';

export interface ControlMessage {
  'start'?: (_llmgw_agent_v1_StartShard | null);
  'stop'?: (_llmgw_agent_v1_StopShard | null);
  'drain'?: (_llmgw_agent_v1_DrainShard | null);
  'ack'?: (_llmgw_agent_v1_Ack | null);
  'logs'?: (_llmgw_agent_v1_LogsRequest | null);
  'msg'?: "start"|"stop"|"drain"|"ack"|"logs";
}

export interface ControlMessage__Output {
  'start'?: (_llmgw_agent_v1_StartShard__Output | null);
  'stop'?: (_llmgw_agent_v1_StopShard__Output | null);
  'drain'?: (_llmgw_agent_v1_DrainShard__Output | null);
  'ack'?: (_llmgw_agent_v1_Ack__Output | null);
  'logs'?: (_llmgw_agent_v1_LogsRequest__Output | null);
  'msg'?: "start"|"stop"|"drain"|"ack"|"logs";
}

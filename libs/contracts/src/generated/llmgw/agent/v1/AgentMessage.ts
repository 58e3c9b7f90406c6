// Original file: llmgw/agent/v1/agent.proto

import type { Register as _llmgw_agent_v1_Register, Register__Output as _llmgw_agent_v1_Register__Output } from '../../../llmgw/agent/v1/Register';
import type { Heartbeat as _llmgw_agent_v1_Heartbeat, Heartbeat__Output as _llmgw_agent_v1_Heartbeat__Output } from '../../../llmgw/agent/v1/Heartbeat';
import type { ShardStatus as _llmgw_agent_v1_ShardStatus, ShardStatus__Output as _llmgw_agent_v1_ShardStatus__Output } from '../../../llmgw/agent/v1/ShardStatus';
import type { EngineStats as _llmgw_agent_v1_EngineStats, EngineStats__Output as _llmgw_agent_v1_EngineStats__Output } from '../../../llmgw/agent/v1/EngineStats';
import type { Ack as _llmgw_agent_v1_Ack, Ack__Output as _llmgw_agent_v1_Ack__Output } from '../../../llmgw/agent/v1/Ack';
import type { LogsReply as _llmgw_agent_v1_LogsReply, LogsReply__Output as _llmgw_agent_v1_LogsReply__Output } from '../../../llmgw/agent/v1/LogsReply';

export interface AgentMessage {
  'register'?: (_llmgw_agent_v1_Register | null);
  'heartbeat'?: (_llmgw_agent_v1_Heartbeat | null);
  'shard'?: (_llmgw_agent_v1_ShardStatus | null);
  'stats'?: (_llmgw_agent_v1_EngineStats | null);
  'ack'?: (_llmgw_agent_v1_Ack | null);
  'logs'?: (_llmgw_agent_v1_LogsReply | null);
  'msg'?: "register"|"heartbeat"|"shard"|"stats"|"ack"|"logs";
}

export interface AgentMessage__Output {
  'register'?: (_llmgw_agent_v1_Register__Output | null);
  'heartbeat'?: (_llmgw_agent_v1_Heartbeat__Output | null);
  'shard'?: (_llmgw_agent_v1_ShardStatus__Output | null);
  'stats'?: (_llmgw_agent_v1_EngineStats__Output | null);
  'ack'?: (_llmgw_agent_v1_Ack__Output | null);
  'logs'?: (_llmgw_agent_v1_LogsReply__Output | null);
  'msg'?: "register"|"heartbeat"|"shard"|"stats"|"ack"|"logs";
}

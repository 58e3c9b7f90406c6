// Original file: llmgw/agent/v1/agent.proto

import type { NodeInfo as _llmgw_agent_v1_NodeInfo, NodeInfo__Output as _llmgw_agent_v1_NodeInfo__Output } from '../../../llmgw/agent/v1/NodeInfo';
import type { ShardStatus as _llmgw_agent_v1_ShardStatus, ShardStatus__Output as _llmgw_agent_v1_ShardStatus__Output } from '../../../llmgw/agent/v1/ShardStatus';
import type { GpuHealthReport as _llmgw_agent_v1_GpuHealthReport, GpuHealthReport__Output as _llmgw_agent_v1_GpuHealthReport__Output } from '../../../llmgw/agent/v1/GpuHealthReport';
import type { Long } from '@grpc/proto-loader';

export interface Register {
  'node'?: (_llmgw_agent_v1_NodeInfo | null);
  'runningShards'?: (_llmgw_agent_v1_ShardStatus)[];
  'sessionId'?: (string);
  'agentStartedAtMs'?: (number | string | Long);
  'sentAtMs'?: (number | string | Long);
  'heartbeatIntervalMs'?: (number);
  'gpuHealth'?: (_llmgw_agent_v1_GpuHealthReport)[];
}

export interface Register__Output {
  'node': (_llmgw_agent_v1_NodeInfo__Output | null);
  'runningShards': (_llmgw_agent_v1_ShardStatus__Output)[];
  'sessionId': (string);
  'agentStartedAtMs': (number);
  'sentAtMs': (number);
  'heartbeatIntervalMs': (number);
  'gpuHealth': (_llmgw_agent_v1_GpuHealthReport__Output)[];
}

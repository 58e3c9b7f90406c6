// Original file: llmgw/control/v1/control.proto

import type { NodeInfo as _llmgw_agent_v1_NodeInfo, NodeInfo__Output as _llmgw_agent_v1_NodeInfo__Output } from '../../../llmgw/agent/v1/NodeInfo';
import type { NodeState as _llmgw_control_v1_NodeState, NodeState__Output as _llmgw_control_v1_NodeState__Output } from '../../../llmgw/control/v1/NodeState';
import type { GpuHealthReport as _llmgw_agent_v1_GpuHealthReport, GpuHealthReport__Output as _llmgw_agent_v1_GpuHealthReport__Output } from '../../../llmgw/agent/v1/GpuHealthReport';
import type { GpuAllocation as _llmgw_control_v1_GpuAllocation, GpuAllocation__Output as _llmgw_control_v1_GpuAllocation__Output } from '../../../llmgw/control/v1/GpuAllocation';
import type { ShardStatus as _llmgw_agent_v1_ShardStatus, ShardStatus__Output as _llmgw_agent_v1_ShardStatus__Output } from '../../../llmgw/agent/v1/ShardStatus';
import type { EngineStats as _llmgw_agent_v1_EngineStats, EngineStats__Output as _llmgw_agent_v1_EngineStats__Output } from '../../../llmgw/agent/v1/EngineStats';
import type { HostSensors as _llmgw_agent_v1_HostSensors, HostSensors__Output as _llmgw_agent_v1_HostSensors__Output } from '../../../llmgw/agent/v1/HostSensors';
import type { Long } from '@grpc/proto-loader';

export interface Node {
  'info'?: (_llmgw_agent_v1_NodeInfo | null);
  'state'?: (_llmgw_control_v1_NodeState);
  'stateReason'?: (string);
  'lastSeenMs'?: (number | string | Long);
  'gpuHealth'?: (_llmgw_agent_v1_GpuHealthReport)[];
  'allocations'?: (_llmgw_control_v1_GpuAllocation)[];
  'shards'?: (_llmgw_agent_v1_ShardStatus)[];
  'engineStats'?: (_llmgw_agent_v1_EngineStats)[];
  'stateSinceMs'?: (number | string | Long);
  'heartbeatIntervalMs'?: (number);
  'hostSensors'?: (_llmgw_agent_v1_HostSensors | null);
}

export interface Node__Output {
  'info': (_llmgw_agent_v1_NodeInfo__Output | null);
  'state': (_llmgw_control_v1_NodeState__Output);
  'stateReason': (string);
  'lastSeenMs': (number);
  'gpuHealth': (_llmgw_agent_v1_GpuHealthReport__Output)[];
  'allocations': (_llmgw_control_v1_GpuAllocation__Output)[];
  'shards': (_llmgw_agent_v1_ShardStatus__Output)[];
  'engineStats': (_llmgw_agent_v1_EngineStats__Output)[];
  'stateSinceMs': (number);
  'heartbeatIntervalMs': (number);
  'hostSensors': (_llmgw_agent_v1_HostSensors__Output | null);
}

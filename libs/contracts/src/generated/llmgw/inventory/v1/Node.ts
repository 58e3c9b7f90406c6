// Original file: llmgw/inventory/v1/inventory.proto

import type { NodeInfo as _llmgw_agent_v1_NodeInfo, NodeInfo__Output as _llmgw_agent_v1_NodeInfo__Output } from '../../../llmgw/agent/v1/NodeInfo';
import type { Connectivity as _llmgw_inventory_v1_Connectivity, Connectivity__Output as _llmgw_inventory_v1_Connectivity__Output } from '../../../llmgw/inventory/v1/Connectivity';
import type { GpuHealthReport as _llmgw_agent_v1_GpuHealthReport, GpuHealthReport__Output as _llmgw_agent_v1_GpuHealthReport__Output } from '../../../llmgw/agent/v1/GpuHealthReport';
import type { ShardStatus as _llmgw_agent_v1_ShardStatus, ShardStatus__Output as _llmgw_agent_v1_ShardStatus__Output } from '../../../llmgw/agent/v1/ShardStatus';
import type { NodeIntent as _llmgw_inventory_v1_NodeIntent, NodeIntent__Output as _llmgw_inventory_v1_NodeIntent__Output } from '../../../llmgw/inventory/v1/NodeIntent';
import type { HostSensors as _llmgw_agent_v1_HostSensors, HostSensors__Output as _llmgw_agent_v1_HostSensors__Output } from '../../../llmgw/agent/v1/HostSensors';
import type { Long } from '@grpc/proto-loader';

export interface Node {
  'info'?: (_llmgw_agent_v1_NodeInfo | null);
  'connectivity'?: (_llmgw_inventory_v1_Connectivity);
  'lastSeenMs'?: (number | string | Long);
  'registeredAtMs'?: (number | string | Long);
  'sessionId'?: (string);
  'peerCn'?: (string);
  'gpuHealth'?: (_llmgw_agent_v1_GpuHealthReport)[];
  'shards'?: (_llmgw_agent_v1_ShardStatus)[];
  'intent'?: (_llmgw_inventory_v1_NodeIntent);
  'intentReason'?: (string);
  'intentSinceMs'?: (number | string | Long);
  'connectivityReason'?: (string);
  'connectivitySinceMs'?: (number | string | Long);
  'instanceId'?: (string);
  'heartbeatIntervalMs'?: (number);
  'intentDrainTimeoutMs'?: (number | string | Long);
  'intentActor'?: (string);
  'hostSensors'?: (_llmgw_agent_v1_HostSensors | null);
}

export interface Node__Output {
  'info': (_llmgw_agent_v1_NodeInfo__Output | null);
  'connectivity': (_llmgw_inventory_v1_Connectivity__Output);
  'lastSeenMs': (number);
  'registeredAtMs': (number);
  'sessionId': (string);
  'peerCn': (string);
  'gpuHealth': (_llmgw_agent_v1_GpuHealthReport__Output)[];
  'shards': (_llmgw_agent_v1_ShardStatus__Output)[];
  'intent': (_llmgw_inventory_v1_NodeIntent__Output);
  'intentReason': (string);
  'intentSinceMs': (number);
  'connectivityReason': (string);
  'connectivitySinceMs': (number);
  'instanceId': (string);
  'heartbeatIntervalMs': (number);
  'intentDrainTimeoutMs': (number);
  'intentActor': (string);
  'hostSensors': (_llmgw_agent_v1_HostSensors__Output | null);
}

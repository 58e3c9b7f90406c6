// Original file: llmgw/agent/v1/agent.proto

import type { GpuHealthReport as _llmgw_agent_v1_GpuHealthReport, GpuHealthReport__Output as _llmgw_agent_v1_GpuHealthReport__Output } from '../../../llmgw/agent/v1/GpuHealthReport';
import type { ShardStatus as _llmgw_agent_v1_ShardStatus, ShardStatus__Output as _llmgw_agent_v1_ShardStatus__Output } from '../../../llmgw/agent/v1/ShardStatus';
import type { HostSensors as _llmgw_agent_v1_HostSensors, HostSensors__Output as _llmgw_agent_v1_HostSensors__Output } from '../../../llmgw/agent/v1/HostSensors';
import type { Long } from '@grpc/proto-loader';

export interface Heartbeat {
  'seq'?: (number | string | Long);
  'sentAtMs'?: (number | string | Long);
  'gpus'?: (_llmgw_agent_v1_GpuHealthReport)[];
  'shards'?: (_llmgw_agent_v1_ShardStatus)[];
  'host'?: (_llmgw_agent_v1_HostSensors | null);
}

export interface Heartbeat__Output {
  'seq': (number);
  'sentAtMs': (number);
  'gpus': (_llmgw_agent_v1_GpuHealthReport__Output)[];
  'shards': (_llmgw_agent_v1_ShardStatus__Output)[];
  'host': (_llmgw_agent_v1_HostSensors__Output | null);
}

// Original file: llmgw/inventory/v1/inventory.proto

import type { ShardStatus as _llmgw_agent_v1_ShardStatus, ShardStatus__Output as _llmgw_agent_v1_ShardStatus__Output } from '../../../llmgw/agent/v1/ShardStatus';

export interface ShardChanged {
  'nodeId'?: (string);
  'status'?: (_llmgw_agent_v1_ShardStatus | null);
}

export interface ShardChanged__Output {
  'nodeId': (string);
  'status': (_llmgw_agent_v1_ShardStatus__Output | null);
}

// Original file: llmgw/inventory/v1/inventory.proto

import type { Ack as _llmgw_agent_v1_Ack, Ack__Output as _llmgw_agent_v1_Ack__Output } from '../../../llmgw/agent/v1/Ack';

export interface ShardCommandResponse {
  'ack'?: (_llmgw_agent_v1_Ack | null);
  'replayed'?: (boolean);
}

export interface ShardCommandResponse__Output {
  'ack': (_llmgw_agent_v1_Ack__Output | null);
  'replayed': (boolean);
}

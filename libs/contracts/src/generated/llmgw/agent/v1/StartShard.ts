// Original file: llmgw/agent/v1/agent.proto

import type { ShardSpec as _llmgw_agent_v1_ShardSpec, ShardSpec__Output as _llmgw_agent_v1_ShardSpec__Output } from '../../../llmgw/agent/v1/ShardSpec';

export interface StartShard {
  'commandId'?: (string);
  'spec'?: (_llmgw_agent_v1_ShardSpec | null);
}

export interface StartShard__Output {
  'commandId': (string);
  'spec': (_llmgw_agent_v1_ShardSpec__Output | null);
}

// Original file: llmgw/inventory/v1/inventory.proto

import type { EngineStats as _llmgw_agent_v1_EngineStats, EngineStats__Output as _llmgw_agent_v1_EngineStats__Output } from '../../../llmgw/agent/v1/EngineStats';

export interface StatsReported {
  'nodeId'?: (string);
  'stats'?: (_llmgw_agent_v1_EngineStats | null);
}

export interface StatsReported__Output {
  'nodeId': (string);
  'stats': (_llmgw_agent_v1_EngineStats__Output | null);
}

// Original file: llmgw/agent/v1/shard.proto

import type { WeightsSource as _llmgw_agent_v1_WeightsSource, WeightsSource__Output as _llmgw_agent_v1_WeightsSource__Output } from '../../../llmgw/agent/v1/WeightsSource';

export interface LoraAdapter {
  'name'?: (string);
  'path'?: (string);
  'weights'?: (_llmgw_agent_v1_WeightsSource | null);
  'scale'?: (number | string);
}

export interface LoraAdapter__Output {
  'name': (string);
  'path': (string);
  'weights': (_llmgw_agent_v1_WeightsSource__Output | null);
  'scale': (number);
}

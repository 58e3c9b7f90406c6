// Original file: llmgw/agent/v1/hardware.proto

import type { FabricSource as _llmgw_agent_v1_FabricSource, FabricSource__Output as _llmgw_agent_v1_FabricSource__Output } from '../../../llmgw/agent/v1/FabricSource';

export interface FabricAttachment {
  'fabric'?: (string);
  'hcas'?: (string)[];
  'rateGbps'?: (number);
  'source'?: (_llmgw_agent_v1_FabricSource);
}

export interface FabricAttachment__Output {
  'fabric': (string);
  'hcas': (string)[];
  'rateGbps': (number);
  'source': (_llmgw_agent_v1_FabricSource__Output);
}

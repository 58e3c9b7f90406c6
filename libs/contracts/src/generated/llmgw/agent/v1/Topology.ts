// Original file: llmgw/agent/v1/hardware.proto

import type { NvlinkGroup as _llmgw_agent_v1_NvlinkGroup, NvlinkGroup__Output as _llmgw_agent_v1_NvlinkGroup__Output } from '../../../llmgw/agent/v1/NvlinkGroup';

export interface Topology {
  'nvlinkGroups'?: (_llmgw_agent_v1_NvlinkGroup)[];
  'numaNodes'?: (number);
  'source'?: (string);
}

export interface Topology__Output {
  'nvlinkGroups': (_llmgw_agent_v1_NvlinkGroup__Output)[];
  'numaNodes': (number);
  'source': (string);
}

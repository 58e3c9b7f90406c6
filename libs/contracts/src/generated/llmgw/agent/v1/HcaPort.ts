// Original file: llmgw/agent/v1/hardware.proto

import type { PortState as _llmgw_agent_v1_PortState, PortState__Output as _llmgw_agent_v1_PortState__Output } from '../../../llmgw/agent/v1/PortState';
import type { LinkLayer as _llmgw_agent_v1_LinkLayer, LinkLayer__Output as _llmgw_agent_v1_LinkLayer__Output } from '../../../llmgw/agent/v1/LinkLayer';

export interface HcaPort {
  'port'?: (number);
  'state'?: (_llmgw_agent_v1_PortState);
  'physState'?: (string);
  'rateGbps'?: (number);
  'linkLayer'?: (_llmgw_agent_v1_LinkLayer);
  'gidPrefix'?: (string);
  'lid'?: (number);
  'smLid'?: (number);
}

export interface HcaPort__Output {
  'port': (number);
  'state': (_llmgw_agent_v1_PortState__Output);
  'physState': (string);
  'rateGbps': (number);
  'linkLayer': (_llmgw_agent_v1_LinkLayer__Output);
  'gidPrefix': (string);
  'lid': (number);
  'smLid': (number);
}

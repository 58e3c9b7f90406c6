// Original file: llmgw/agent/v1/hardware.proto

import type { HcaPort as _llmgw_agent_v1_HcaPort, HcaPort__Output as _llmgw_agent_v1_HcaPort__Output } from '../../../llmgw/agent/v1/HcaPort';

export interface Hca {
  'name'?: (string);
  'pciBusId'?: (string);
  'numaNode'?: (number);
  'ports'?: (_llmgw_agent_v1_HcaPort)[];
}

export interface Hca__Output {
  'name': (string);
  'pciBusId': (string);
  'numaNode': (number);
  'ports': (_llmgw_agent_v1_HcaPort__Output)[];
}

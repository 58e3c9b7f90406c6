// Original file: llmgw/agent/v1/hardware.proto

import type { EngineVersion as _llmgw_agent_v1_EngineVersion, EngineVersion__Output as _llmgw_agent_v1_EngineVersion__Output } from '../../../llmgw/agent/v1/EngineVersion';

export interface Versions {
  'agent'?: (string);
  'driver'?: (string);
  'cuda'?: (string);
  'engines'?: (_llmgw_agent_v1_EngineVersion)[];
}

export interface Versions__Output {
  'agent': (string);
  'driver': (string);
  'cuda': (string);
  'engines': (_llmgw_agent_v1_EngineVersion__Output)[];
}

// Original file: llmgw/agent/v1/hardware.proto

import type { MigMode as _llmgw_agent_v1_MigMode, MigMode__Output as _llmgw_agent_v1_MigMode__Output } from '../../../llmgw/agent/v1/MigMode';
import type { Long } from '@grpc/proto-loader';

export interface Gpu {
  'index'?: (number);
  'uuid'?: (string);
  'name'?: (string);
  'memoryTotalMib'?: (number | string | Long);
  'pciBusId'?: (string);
  'numaNode'?: (number);
  'computeCapability'?: (string);
  'gpuClass'?: (string);
  'nvlinkPeers'?: (number)[];
  'migMode'?: (_llmgw_agent_v1_MigMode);
  'eccEnabled'?: (boolean);
  'eccSupported'?: (boolean);
  'driverVersion'?: (string);
  'powerLimitWatts'?: (number | string);
}

export interface Gpu__Output {
  'index': (number);
  'uuid': (string);
  'name': (string);
  'memoryTotalMib': (number);
  'pciBusId': (string);
  'numaNode': (number);
  'computeCapability': (string);
  'gpuClass': (string);
  'nvlinkPeers': (number)[];
  'migMode': (_llmgw_agent_v1_MigMode__Output);
  'eccEnabled': (boolean);
  'eccSupported': (boolean);
  'driverVersion': (string);
  'powerLimitWatts': (number);
}

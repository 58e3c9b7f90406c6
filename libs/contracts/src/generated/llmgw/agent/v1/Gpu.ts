// Original file: llmgw/agent/v1/hardware.proto

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
}

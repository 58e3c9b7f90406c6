// Original file: llmgw/control/v1/control.proto

import type { Long } from '@grpc/proto-loader';

export interface Profile {
  'name'?: (string);
  'gpuClass'?: (string);
  'engine'?: (string);
  'tensorParallel'?: (number);
  'pipelineParallel'?: (number);
  'gpusPerNode'?: (number);
  'nodes'?: (number);
  'priority'?: (number);
  'weight'?: (number);
  'startupTimeoutMs'?: (number | string | Long);
}

export interface Profile__Output {
  'name': (string);
  'gpuClass': (string);
  'engine': (string);
  'tensorParallel': (number);
  'pipelineParallel': (number);
  'gpusPerNode': (number);
  'nodes': (number);
  'priority': (number);
  'weight': (number);
  'startupTimeoutMs': (number);
}

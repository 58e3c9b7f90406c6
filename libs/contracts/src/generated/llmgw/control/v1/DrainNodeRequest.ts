// Original file: llmgw/control/v1/control.proto

import type { Long } from '@grpc/proto-loader';

export interface DrainNodeRequest {
  'nodeId'?: (string);
  'reason'?: (string);
  'replicaDrainTimeoutMs'?: (number | string | Long);
}

export interface DrainNodeRequest__Output {
  'nodeId': (string);
  'reason': (string);
  'replicaDrainTimeoutMs': (number);
}

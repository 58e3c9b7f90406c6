// Original file: llmgw/control/v1/control.proto

import type { Long } from '@grpc/proto-loader';

export interface AutoscaleStatus {
  'action'?: (string);
  'reason'?: (string);
  'from'?: (number);
  'to'?: (number);
  'atMs'?: (number | string | Long);
  'lastChange'?: (string);
  'lastChangeMs'?: (number | string | Long);
}

export interface AutoscaleStatus__Output {
  'action': (string);
  'reason': (string);
  'from': (number);
  'to': (number);
  'atMs': (number);
  'lastChange': (string);
  'lastChangeMs': (number);
}

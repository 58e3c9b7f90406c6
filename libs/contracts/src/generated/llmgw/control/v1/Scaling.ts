// Original file: llmgw/control/v1/control.proto

import type { Long } from '@grpc/proto-loader';

export interface Scaling {
  'minReplicas'?: (number);
  'maxReplicas'?: (number);
  'idleTimeoutMs'?: (number | string | Long);
  'targetWaitingPerReplica'?: (number | string);
}

export interface Scaling__Output {
  'minReplicas': (number);
  'maxReplicas': (number);
  'idleTimeoutMs': (number);
  'targetWaitingPerReplica': (number);
}

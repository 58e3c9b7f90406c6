// Original file: llmgw/control/v1/control.proto

import type { AppliedProfileCapacity as _llmgw_control_v1_AppliedProfileCapacity, AppliedProfileCapacity__Output as _llmgw_control_v1_AppliedProfileCapacity__Output } from '../../../llmgw/control/v1/AppliedProfileCapacity';
import type { Long } from '@grpc/proto-loader';

export interface AppliedCapacity {
  'profiles'?: (_llmgw_control_v1_AppliedProfileCapacity)[];
  'targetWaitingPerReplica'?: (number | string);
  'appliedAtMs'?: (number | string | Long);
  'appliedBy'?: (string);
}

export interface AppliedCapacity__Output {
  'profiles': (_llmgw_control_v1_AppliedProfileCapacity__Output)[];
  'targetWaitingPerReplica': (number);
  'appliedAtMs': (number);
  'appliedBy': (string);
}

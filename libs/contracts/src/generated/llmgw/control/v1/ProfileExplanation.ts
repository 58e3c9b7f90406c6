// Original file: llmgw/control/v1/control.proto

import type { PoolCandidate as _llmgw_control_v1_PoolCandidate, PoolCandidate__Output as _llmgw_control_v1_PoolCandidate__Output } from '../../../llmgw/control/v1/PoolCandidate';
import type { RejectReason as _llmgw_control_v1_RejectReason, RejectReason__Output as _llmgw_control_v1_RejectReason__Output } from '../../../llmgw/control/v1/RejectReason';

export interface ProfileExplanation {
  'profile'?: (string);
  'priority'?: (number);
  'gpuClass'?: (string);
  'nodes'?: (number);
  'gpusPerNode'?: (number);
  'pools'?: (_llmgw_control_v1_PoolCandidate)[];
  'reason'?: (_llmgw_control_v1_RejectReason);
  'detail'?: (string);
}

export interface ProfileExplanation__Output {
  'profile': (string);
  'priority': (number);
  'gpuClass': (string);
  'nodes': (number);
  'gpusPerNode': (number);
  'pools': (_llmgw_control_v1_PoolCandidate__Output)[];
  'reason': (_llmgw_control_v1_RejectReason__Output);
  'detail': (string);
}

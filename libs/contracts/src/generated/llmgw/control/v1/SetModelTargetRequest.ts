// Original file: llmgw/control/v1/control.proto

import type { AppliedCapacity as _llmgw_control_v1_AppliedCapacity, AppliedCapacity__Output as _llmgw_control_v1_AppliedCapacity__Output } from '../../../llmgw/control/v1/AppliedCapacity';

export interface SetModelTargetRequest {
  'model'?: (string);
  'minReplicas'?: (number);
  'maxReplicas'?: (number);
  'clear'?: (boolean);
  'appliedCapacity'?: (_llmgw_control_v1_AppliedCapacity | null);
  'clearCapacity'?: (boolean);
  'keepReplicas'?: (boolean);
}

export interface SetModelTargetRequest__Output {
  'model': (string);
  'minReplicas': (number);
  'maxReplicas': (number);
  'clear': (boolean);
  'appliedCapacity': (_llmgw_control_v1_AppliedCapacity__Output | null);
  'clearCapacity': (boolean);
  'keepReplicas': (boolean);
}

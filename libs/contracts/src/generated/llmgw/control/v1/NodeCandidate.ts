// Original file: llmgw/control/v1/control.proto

import type { RejectReason as _llmgw_control_v1_RejectReason, RejectReason__Output as _llmgw_control_v1_RejectReason__Output } from '../../../llmgw/control/v1/RejectReason';

export interface NodeCandidate {
  'nodeId'?: (string);
  'reason'?: (_llmgw_control_v1_RejectReason);
  'detail'?: (string);
  'freeGpus'?: (number);
  'score'?: (number | string);
}

export interface NodeCandidate__Output {
  'nodeId': (string);
  'reason': (_llmgw_control_v1_RejectReason__Output);
  'detail': (string);
  'freeGpus': (number);
  'score': (number);
}

// Original file: llmgw/admission/v1/admission.proto

import type { RejectReason as _llmgw_admission_v1_RejectReason, RejectReason__Output as _llmgw_admission_v1_RejectReason__Output } from '../../../llmgw/admission/v1/RejectReason';

export interface Rejected {
  'reason'?: (_llmgw_admission_v1_RejectReason);
  'retryAfterSeconds'?: (number);
  'message'?: (string);
}

export interface Rejected__Output {
  'reason': (_llmgw_admission_v1_RejectReason__Output);
  'retryAfterSeconds': (number);
  'message': (string);
}

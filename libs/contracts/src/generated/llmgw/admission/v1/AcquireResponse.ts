// Original file: llmgw/admission/v1/admission.proto

import type { Granted as _llmgw_admission_v1_Granted, Granted__Output as _llmgw_admission_v1_Granted__Output } from '../../../llmgw/admission/v1/Granted';
import type { Rejected as _llmgw_admission_v1_Rejected, Rejected__Output as _llmgw_admission_v1_Rejected__Output } from '../../../llmgw/admission/v1/Rejected';
import type { Long } from '@grpc/proto-loader';

export interface AcquireResponse {
  'granted'?: (_llmgw_admission_v1_Granted | null);
  'rejected'?: (_llmgw_admission_v1_Rejected | null);
  'queuedMs'?: (number | string | Long);
  'result'?: "granted"|"rejected";
}

export interface AcquireResponse__Output {
  'granted'?: (_llmgw_admission_v1_Granted__Output | null);
  'rejected'?: (_llmgw_admission_v1_Rejected__Output | null);
  'queuedMs': (number);
  'result'?: "granted"|"rejected";
}

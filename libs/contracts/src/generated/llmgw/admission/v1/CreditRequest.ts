// Original file: llmgw/admission/v1/admission.proto

import type { CreditUse as _llmgw_admission_v1_CreditUse, CreditUse__Output as _llmgw_admission_v1_CreditUse__Output } from '../../../llmgw/admission/v1/CreditUse';

export interface CreditRequest {
  'routerId'?: (string);
  'uses'?: (_llmgw_admission_v1_CreditUse)[];
}

export interface CreditRequest__Output {
  'routerId': (string);
  'uses': (_llmgw_admission_v1_CreditUse__Output)[];
}

// Original file: llmgw/admission/v1/admission.proto

import type { CreditGrant as _llmgw_admission_v1_CreditGrant, CreditGrant__Output as _llmgw_admission_v1_CreditGrant__Output } from '../../../llmgw/admission/v1/CreditGrant';
import type { Long } from '@grpc/proto-loader';

export interface CreditResponse {
  'grants'?: (_llmgw_admission_v1_CreditGrant)[];
  'ttlMs'?: (number);
  'fencingToken'?: (number | string | Long);
}

export interface CreditResponse__Output {
  'grants': (_llmgw_admission_v1_CreditGrant__Output)[];
  'ttlMs': (number);
  'fencingToken': (number);
}

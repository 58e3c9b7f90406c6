// Original file: llmgw/admission/v1/admission.proto

import type { HeldLease as _llmgw_admission_v1_HeldLease, HeldLease__Output as _llmgw_admission_v1_HeldLease__Output } from '../../../llmgw/admission/v1/HeldLease';

export interface KeepAliveRequest {
  'routerId'?: (string);
  'leases'?: (_llmgw_admission_v1_HeldLease)[];
}

export interface KeepAliveRequest__Output {
  'routerId': (string);
  'leases': (_llmgw_admission_v1_HeldLease__Output)[];
}

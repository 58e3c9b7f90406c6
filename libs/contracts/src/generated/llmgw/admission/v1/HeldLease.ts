// Original file: llmgw/admission/v1/admission.proto


export interface HeldLease {
  'leaseId'?: (string);
  'pool'?: (string);
}

export interface HeldLease__Output {
  'leaseId': (string);
  'pool': (string);
}

// Original file: llmgw/admission/v1/admission.proto


export interface Granted {
  'leaseId'?: (string);
  'pool'?: (string);
}

export interface Granted__Output {
  'leaseId': (string);
  'pool': (string);
}

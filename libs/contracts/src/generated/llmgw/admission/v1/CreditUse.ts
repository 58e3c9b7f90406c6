// Original file: llmgw/admission/v1/admission.proto


export interface CreditUse {
  'model'?: (string);
  'pool'?: (string);
  'inUse'?: (number);
}

export interface CreditUse__Output {
  'model': (string);
  'pool': (string);
  'inUse': (number);
}

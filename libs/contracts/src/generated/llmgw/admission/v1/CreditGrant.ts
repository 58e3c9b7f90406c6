// Original file: llmgw/admission/v1/admission.proto


export interface CreditGrant {
  'model'?: (string);
  'pool'?: (string);
  'limit'?: (number);
}

export interface CreditGrant__Output {
  'model': (string);
  'pool': (string);
  'limit': (number);
}

// Original file: llmgw/accounting/v1/accounting.proto


export interface ClaimRequest {
  'token'?: (string);
  'password'?: (string);
  'peek'?: (boolean);
}

export interface ClaimRequest__Output {
  'token': (string);
  'password': (string);
  'peek': (boolean);
}

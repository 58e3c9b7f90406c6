// Original file: llmgw/accounting/v1/accounting.proto


export interface SignInRequest {
  'email'?: (string);
  'password'?: (string);
  'address'?: (string);
  'previousToken'?: (string);
}

export interface SignInRequest__Output {
  'email': (string);
  'password': (string);
  'address': (string);
  'previousToken': (string);
}

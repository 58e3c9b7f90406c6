// Original file: llmgw/accounting/v1/accounting.proto


export interface SignupRequest {
  'email'?: (string);
  'name'?: (string);
  'password'?: (string);
}

export interface SignupRequest__Output {
  'email': (string);
  'name': (string);
  'password': (string);
}

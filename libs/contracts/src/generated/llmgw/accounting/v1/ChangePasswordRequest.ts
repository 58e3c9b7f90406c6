// Original file: llmgw/accounting/v1/accounting.proto


export interface ChangePasswordRequest {
  'token'?: (string);
  'current'?: (string);
  'next'?: (string);
}

export interface ChangePasswordRequest__Output {
  'token': (string);
  'current': (string);
  'next': (string);
}

// Original file: llmgw/accounting/v1/accounting.proto


export interface SessionRequest {
  'token'?: (string);
}

export interface SessionRequest__Output {
  'token': (string);
}

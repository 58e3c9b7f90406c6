// Original file: llmgw/accounting/v1/accounting.proto


export interface RevokeMyKeyRequest {
  'token'?: (string);
  'ref'?: (string);
}

export interface RevokeMyKeyRequest__Output {
  'token': (string);
  'ref': (string);
}

// Original file: llmgw/accounting/v1/accounting.proto


export interface ResolveKeyRequest {
  'keyHash'?: (string);
}

export interface ResolveKeyRequest__Output {
  'keyHash': (string);
}

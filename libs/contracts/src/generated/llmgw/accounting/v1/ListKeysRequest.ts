// Original file: llmgw/accounting/v1/accounting.proto


export interface ListKeysRequest {
  'project'?: (string);
  'includeRevoked'?: (boolean);
}

export interface ListKeysRequest__Output {
  'project': (string);
  'includeRevoked': (boolean);
}

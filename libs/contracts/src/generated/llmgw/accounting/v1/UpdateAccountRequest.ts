// Original file: llmgw/accounting/v1/accounting.proto


export interface UpdateAccountRequest {
  'ref'?: (string);
  'action'?: (string);
  'role'?: (string);
  'project'?: (string);
}

export interface UpdateAccountRequest__Output {
  'ref': (string);
  'action': (string);
  'role': (string);
  'project': (string);
}

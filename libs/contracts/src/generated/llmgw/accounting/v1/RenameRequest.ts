// Original file: llmgw/accounting/v1/accounting.proto


export interface RenameRequest {
  'ref'?: (string);
  'name'?: (string);
}

export interface RenameRequest__Output {
  'ref': (string);
  'name': (string);
}

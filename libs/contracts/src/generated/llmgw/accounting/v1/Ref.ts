// Original file: llmgw/accounting/v1/accounting.proto


export interface Ref {
  'ref'?: (string);
}

export interface Ref__Output {
  'ref': (string);
}

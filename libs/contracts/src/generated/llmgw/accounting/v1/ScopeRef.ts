// Original file: llmgw/accounting/v1/accounting.proto


export interface ScopeRef {
  'scopeType'?: (string);
  'scope'?: (string);
}

export interface ScopeRef__Output {
  'scopeType': (string);
  'scope': (string);
}

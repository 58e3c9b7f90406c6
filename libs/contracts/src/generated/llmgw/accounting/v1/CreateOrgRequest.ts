// Original file: llmgw/accounting/v1/accounting.proto


export interface CreateOrgRequest {
  'name'?: (string);
}

export interface CreateOrgRequest__Output {
  'name': (string);
}

// Original file: llmgw/accounting/v1/accounting.proto


export interface CreateProjectRequest {
  'team'?: (string);
  'name'?: (string);
  'band'?: (string);
}

export interface CreateProjectRequest__Output {
  'team': (string);
  'name': (string);
  'band': (string);
}

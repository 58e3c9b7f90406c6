// Original file: llmgw/accounting/v1/accounting.proto


export interface UpdateProjectRequest {
  'ref'?: (string);
  'name'?: (string);
  'band'?: (string);
}

export interface UpdateProjectRequest__Output {
  'ref': (string);
  'name': (string);
  'band': (string);
}

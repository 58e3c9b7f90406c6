// Original file: llmgw/accounting/v1/accounting.proto


export interface ListProjectsRequest {
  'team'?: (string);
}

export interface ListProjectsRequest__Output {
  'team': (string);
}

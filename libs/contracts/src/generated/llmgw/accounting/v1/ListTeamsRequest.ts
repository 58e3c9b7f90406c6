// Original file: llmgw/accounting/v1/accounting.proto


export interface ListTeamsRequest {
  'org'?: (string);
}

export interface ListTeamsRequest__Output {
  'org': (string);
}

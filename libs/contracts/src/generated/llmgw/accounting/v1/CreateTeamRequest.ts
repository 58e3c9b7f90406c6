// Original file: llmgw/accounting/v1/accounting.proto


export interface CreateTeamRequest {
  'org'?: (string);
  'name'?: (string);
}

export interface CreateTeamRequest__Output {
  'org': (string);
  'name': (string);
}

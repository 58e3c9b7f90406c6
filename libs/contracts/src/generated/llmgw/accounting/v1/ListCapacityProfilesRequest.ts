// Original file: llmgw/accounting/v1/accounting.proto


export interface ListCapacityProfilesRequest {
  'model'?: (string);
}

export interface ListCapacityProfilesRequest__Output {
  'model': (string);
}

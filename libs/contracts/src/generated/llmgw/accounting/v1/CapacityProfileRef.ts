// Original file: llmgw/accounting/v1/accounting.proto


export interface CapacityProfileRef {
  'model'?: (string);
  'profile'?: (string);
}

export interface CapacityProfileRef__Output {
  'model': (string);
  'profile': (string);
}

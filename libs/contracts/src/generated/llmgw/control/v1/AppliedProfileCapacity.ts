// Original file: llmgw/control/v1/control.proto


export interface AppliedProfileCapacity {
  'profile'?: (string);
  'weight'?: (number);
  'targetWaitingPerReplica'?: (number | string);
  'maxConcurrencyAtSlo'?: (number);
  'gpuClass'?: (string);
}

export interface AppliedProfileCapacity__Output {
  'profile': (string);
  'weight': (number);
  'targetWaitingPerReplica': (number);
  'maxConcurrencyAtSlo': (number);
  'gpuClass': (string);
}

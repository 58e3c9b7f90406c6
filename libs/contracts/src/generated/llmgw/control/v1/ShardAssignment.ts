// Original file: llmgw/control/v1/control.proto


export interface ShardAssignment {
  'nodeId'?: (string);
  'rank'?: (number);
  'gpuIndices'?: (number)[];
  'hcas'?: (string)[];
}

export interface ShardAssignment__Output {
  'nodeId': (string);
  'rank': (number);
  'gpuIndices': (number)[];
  'hcas': (string)[];
}

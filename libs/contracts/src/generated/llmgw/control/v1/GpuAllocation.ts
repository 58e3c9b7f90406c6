// Original file: llmgw/control/v1/control.proto


export interface GpuAllocation {
  'gpuIndex'?: (number);
  'shardId'?: (string);
  'replicaId'?: (string);
  'model'?: (string);
}

export interface GpuAllocation__Output {
  'gpuIndex': (number);
  'shardId': (string);
  'replicaId': (string);
  'model': (string);
}

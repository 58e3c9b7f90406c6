// Original file: llmgw/agent/v1/hardware.proto


export interface NvlinkGroup {
  'gpuIndices'?: (number)[];
}

export interface NvlinkGroup__Output {
  'gpuIndices': (number)[];
}

// Original file: llmgw/inventory/v1/inventory.proto


export interface NodeRemoved {
  'nodeId'?: (string);
}

export interface NodeRemoved__Output {
  'nodeId': (string);
}

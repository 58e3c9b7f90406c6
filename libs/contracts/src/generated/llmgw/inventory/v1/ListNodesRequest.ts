// Original file: llmgw/inventory/v1/inventory.proto


export interface ListNodesRequest {
  'includeStats'?: (boolean);
  'nodeId'?: (string);
}

export interface ListNodesRequest__Output {
  'includeStats': (boolean);
  'nodeId': (string);
}

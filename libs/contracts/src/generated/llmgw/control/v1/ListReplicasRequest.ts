// Original file: llmgw/control/v1/control.proto


export interface ListReplicasRequest {
  'model'?: (string);
  'nodeId'?: (string);
}

export interface ListReplicasRequest__Output {
  'model': (string);
  'nodeId': (string);
}

// Original file: llmgw/control/v1/control.proto


export interface GetNodeRequest {
  'nodeId'?: (string);
}

export interface GetNodeRequest__Output {
  'nodeId': (string);
}

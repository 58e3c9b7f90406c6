// Original file: llmgw/control/v1/control.proto


export interface CordonNodeRequest {
  'nodeId'?: (string);
  'reason'?: (string);
}

export interface CordonNodeRequest__Output {
  'nodeId': (string);
  'reason': (string);
}

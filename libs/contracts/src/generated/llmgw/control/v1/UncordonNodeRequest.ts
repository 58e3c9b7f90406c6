// Original file: llmgw/control/v1/control.proto


export interface UncordonNodeRequest {
  'nodeId'?: (string);
}

export interface UncordonNodeRequest__Output {
  'nodeId': (string);
}

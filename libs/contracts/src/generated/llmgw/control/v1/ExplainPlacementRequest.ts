// Original file: llmgw/control/v1/control.proto


export interface ExplainPlacementRequest {
  'model'?: (string);
  'profile'?: (string);
}

export interface ExplainPlacementRequest__Output {
  'model': (string);
  'profile': (string);
}

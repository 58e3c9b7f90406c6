// Original file: llmgw/control/v1/control.proto


export interface SetModelTargetRequest {
  'model'?: (string);
  'minReplicas'?: (number);
  'maxReplicas'?: (number);
  'clear'?: (boolean);
}

export interface SetModelTargetRequest__Output {
  'model': (string);
  'minReplicas': (number);
  'maxReplicas': (number);
  'clear': (boolean);
}

// Original file: llmgw/admission/v1/admission.proto


export interface ModelQueue {
  'model'?: (string);
  'queued'?: (number);
  'outstanding'?: (number);
}

export interface ModelQueue__Output {
  'model': (string);
  'queued': (number);
  'outstanding': (number);
}

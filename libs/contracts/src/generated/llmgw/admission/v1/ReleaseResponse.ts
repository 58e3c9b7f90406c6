// Original file: llmgw/admission/v1/admission.proto


export interface ReleaseResponse {
  'released'?: (boolean);
}

export interface ReleaseResponse__Output {
  'released': (boolean);
}

// Original file: llmgw/admission/v1/admission.proto


export interface KeepAliveResponse {
  'known'?: (number);
  'routerTtlMs'?: (number);
}

export interface KeepAliveResponse__Output {
  'known': (number);
  'routerTtlMs': (number);
}

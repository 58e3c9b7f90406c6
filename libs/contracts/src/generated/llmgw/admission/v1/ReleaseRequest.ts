// Original file: llmgw/admission/v1/admission.proto


export interface ReleaseRequest {
  'leaseId'?: (string);
  'routerId'?: (string);
  'status'?: (number);
  'promptTokens'?: (number);
  'completionTokens'?: (number);
}

export interface ReleaseRequest__Output {
  'leaseId': (string);
  'routerId': (string);
  'status': (number);
  'promptTokens': (number);
  'completionTokens': (number);
}

// Original file: llmgw/admission/v1/admission.proto

import type { Long } from '@grpc/proto-loader';

export interface AcquireRequest {
  'requestId'?: (string);
  'band'?: (string);
  'tenant'?: (string);
  'model'?: (string);
  'candidatePools'?: (string)[];
  'estimatedTokens'?: (number | string | Long);
  'deadlineUnixMs'?: (number | string | Long);
  'routerId'?: (string);
}

export interface AcquireRequest__Output {
  'requestId': (string);
  'band': (string);
  'tenant': (string);
  'model': (string);
  'candidatePools': (string)[];
  'estimatedTokens': (number);
  'deadlineUnixMs': (number);
  'routerId': (string);
}

// Original file: llmgw/admission/v1/admission.proto

import type { Long } from '@grpc/proto-loader';

export interface StatusResponse {
  'serving'?: (boolean);
  'fencingToken'?: (number | string | Long);
  'instanceId'?: (string);
  'queued'?: (number);
  'outstanding'?: (number);
}

export interface StatusResponse__Output {
  'serving': (boolean);
  'fencingToken': (number);
  'instanceId': (string);
  'queued': (number);
  'outstanding': (number);
}

// Original file: llmgw/admission/v1/admission.proto

import type { ModelQueue as _llmgw_admission_v1_ModelQueue, ModelQueue__Output as _llmgw_admission_v1_ModelQueue__Output } from '../../../llmgw/admission/v1/ModelQueue';
import type { Long } from '@grpc/proto-loader';

export interface StatusResponse {
  'serving'?: (boolean);
  'fencingToken'?: (number | string | Long);
  'instanceId'?: (string);
  'queued'?: (number);
  'outstanding'?: (number);
  'models'?: (_llmgw_admission_v1_ModelQueue)[];
}

export interface StatusResponse__Output {
  'serving': (boolean);
  'fencingToken': (number);
  'instanceId': (string);
  'queued': (number);
  'outstanding': (number);
  'models': (_llmgw_admission_v1_ModelQueue__Output)[];
}

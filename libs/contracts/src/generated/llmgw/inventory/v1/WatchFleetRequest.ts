// Original file: llmgw/inventory/v1/inventory.proto

import type { Long } from '@grpc/proto-loader';

export interface WatchFleetRequest {
  'includeStats'?: (boolean);
  'resumeAfterRevision'?: (number | string | Long);
  'resumeEpoch'?: (string);
}

export interface WatchFleetRequest__Output {
  'includeStats': (boolean);
  'resumeAfterRevision': (number);
  'resumeEpoch': (string);
}

// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface ListAuditRequest {
  'sinceMs'?: (number | string | Long);
  'limit'?: (number);
  'targetId'?: (string);
}

export interface ListAuditRequest__Output {
  'sinceMs': (number);
  'limit': (number);
  'targetId': (string);
}

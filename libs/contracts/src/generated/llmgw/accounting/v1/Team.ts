// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface Team {
  'id'?: (string);
  'orgId'?: (string);
  'name'?: (string);
  'createdAtMs'?: (number | string | Long);
}

export interface Team__Output {
  'id': (string);
  'orgId': (string);
  'name': (string);
  'createdAtMs': (number);
}

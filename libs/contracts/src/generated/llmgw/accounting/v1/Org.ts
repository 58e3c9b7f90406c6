// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface Org {
  'id'?: (string);
  'name'?: (string);
  'createdAtMs'?: (number | string | Long);
}

export interface Org__Output {
  'id': (string);
  'name': (string);
  'createdAtMs': (number);
}

// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface ScopeLimit {
  'scope'?: (string);
  'limit'?: (number | string | Long);
}

export interface ScopeLimit__Output {
  'scope': (string);
  'limit': (number);
}

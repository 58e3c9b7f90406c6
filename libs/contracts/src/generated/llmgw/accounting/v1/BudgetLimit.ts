// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface BudgetLimit {
  'scope'?: (string);
  'limitMicros'?: (number | string | Long);
  'period'?: (string);
}

export interface BudgetLimit__Output {
  'scope': (string);
  'limitMicros': (number);
  'period': (string);
}

// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface BudgetSpend {
  'scope'?: (string);
  'period'?: (string);
  'limitMicros'?: (number | string | Long);
  'spentMicros'?: (number | string | Long);
  'periodEndMs'?: (number | string | Long);
}

export interface BudgetSpend__Output {
  'scope': (string);
  'period': (string);
  'limitMicros': (number);
  'spentMicros': (number);
  'periodEndMs': (number);
}

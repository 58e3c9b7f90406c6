// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface UsageRow {
  'group'?: (string);
  'requests'?: (number | string | Long);
  'promptTokens'?: (number | string | Long);
  'completionTokens'?: (number | string | Long);
  'cachedTokens'?: (number | string | Long);
  'costMicros'?: (number | string | Long);
  'refused'?: (number | string | Long);
  'failed'?: (number | string | Long);
}

export interface UsageRow__Output {
  'group': (string);
  'requests': (number);
  'promptTokens': (number);
  'completionTokens': (number);
  'cachedTokens': (number);
  'costMicros': (number);
  'refused': (number);
  'failed': (number);
}

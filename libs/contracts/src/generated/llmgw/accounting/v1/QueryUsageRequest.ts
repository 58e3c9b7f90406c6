// Original file: llmgw/accounting/v1/accounting.proto

import type { ScopeRef as _llmgw_accounting_v1_ScopeRef, ScopeRef__Output as _llmgw_accounting_v1_ScopeRef__Output } from '../../../llmgw/accounting/v1/ScopeRef';
import type { Long } from '@grpc/proto-loader';

export interface QueryUsageRequest {
  'scope'?: (_llmgw_accounting_v1_ScopeRef | null);
  'fromMs'?: (number | string | Long);
  'toMs'?: (number | string | Long);
  'groupBy'?: (string);
}

export interface QueryUsageRequest__Output {
  'scope': (_llmgw_accounting_v1_ScopeRef__Output | null);
  'fromMs': (number);
  'toMs': (number);
  'groupBy': (string);
}

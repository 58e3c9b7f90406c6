// Original file: llmgw/accounting/v1/accounting.proto

import type { ScopeRef as _llmgw_accounting_v1_ScopeRef, ScopeRef__Output as _llmgw_accounting_v1_ScopeRef__Output } from '../../../llmgw/accounting/v1/ScopeRef';
import type { Limit as _llmgw_accounting_v1_Limit, Limit__Output as _llmgw_accounting_v1_Limit__Output } from '../../../llmgw/accounting/v1/Limit';

export interface SetLimitRequest {
  'scope'?: (_llmgw_accounting_v1_ScopeRef | null);
  'limit'?: (_llmgw_accounting_v1_Limit | null);
}

export interface SetLimitRequest__Output {
  'scope': (_llmgw_accounting_v1_ScopeRef__Output | null);
  'limit': (_llmgw_accounting_v1_Limit__Output | null);
}

// Original file: llmgw/accounting/v1/accounting.proto

import type { Limit as _llmgw_accounting_v1_Limit, Limit__Output as _llmgw_accounting_v1_Limit__Output } from '../../../llmgw/accounting/v1/Limit';

export interface ListLimitsResponse {
  'limits'?: (_llmgw_accounting_v1_Limit)[];
}

export interface ListLimitsResponse__Output {
  'limits': (_llmgw_accounting_v1_Limit__Output)[];
}

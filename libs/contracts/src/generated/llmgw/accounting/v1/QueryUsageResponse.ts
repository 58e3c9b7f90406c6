// Original file: llmgw/accounting/v1/accounting.proto

import type { UsageRow as _llmgw_accounting_v1_UsageRow, UsageRow__Output as _llmgw_accounting_v1_UsageRow__Output } from '../../../llmgw/accounting/v1/UsageRow';

export interface QueryUsageResponse {
  'rows'?: (_llmgw_accounting_v1_UsageRow)[];
}

export interface QueryUsageResponse__Output {
  'rows': (_llmgw_accounting_v1_UsageRow__Output)[];
}

// Original file: llmgw/accounting/v1/accounting.proto

import type { Account as _llmgw_accounting_v1_Account, Account__Output as _llmgw_accounting_v1_Account__Output } from '../../../llmgw/accounting/v1/Account';

export interface ListAccountsResponse {
  'accounts'?: (_llmgw_accounting_v1_Account)[];
}

export interface ListAccountsResponse__Output {
  'accounts': (_llmgw_accounting_v1_Account__Output)[];
}

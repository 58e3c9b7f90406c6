// Original file: llmgw/accounting/v1/accounting.proto

import type { Account as _llmgw_accounting_v1_Account, Account__Output as _llmgw_accounting_v1_Account__Output } from '../../../llmgw/accounting/v1/Account';

export interface UpdateAccountResponse {
  'account'?: (_llmgw_accounting_v1_Account | null);
  'password'?: (string);
}

export interface UpdateAccountResponse__Output {
  'account': (_llmgw_accounting_v1_Account__Output | null);
  'password': (string);
}

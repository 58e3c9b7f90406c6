// Original file: llmgw/accounting/v1/accounting.proto

import type { ApiKey as _llmgw_accounting_v1_ApiKey, ApiKey__Output as _llmgw_accounting_v1_ApiKey__Output } from '../../../llmgw/accounting/v1/ApiKey';
import type { Account as _llmgw_accounting_v1_Account, Account__Output as _llmgw_accounting_v1_Account__Output } from '../../../llmgw/accounting/v1/Account';

export interface ClaimResponse {
  'kind'?: (string);
  'secret'?: (string);
  'key'?: (_llmgw_accounting_v1_ApiKey | null);
  'account'?: (_llmgw_accounting_v1_Account | null);
  'email'?: (string);
  'keyName'?: (string);
}

export interface ClaimResponse__Output {
  'kind': (string);
  'secret': (string);
  'key': (_llmgw_accounting_v1_ApiKey__Output | null);
  'account': (_llmgw_accounting_v1_Account__Output | null);
  'email': (string);
  'keyName': (string);
}

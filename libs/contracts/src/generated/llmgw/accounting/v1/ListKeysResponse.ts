// Original file: llmgw/accounting/v1/accounting.proto

import type { ApiKey as _llmgw_accounting_v1_ApiKey, ApiKey__Output as _llmgw_accounting_v1_ApiKey__Output } from '../../../llmgw/accounting/v1/ApiKey';

export interface ListKeysResponse {
  'keys'?: (_llmgw_accounting_v1_ApiKey)[];
}

export interface ListKeysResponse__Output {
  'keys': (_llmgw_accounting_v1_ApiKey__Output)[];
}

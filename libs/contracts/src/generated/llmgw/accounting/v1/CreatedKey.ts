// Original file: llmgw/accounting/v1/accounting.proto

import type { ApiKey as _llmgw_accounting_v1_ApiKey, ApiKey__Output as _llmgw_accounting_v1_ApiKey__Output } from '../../../llmgw/accounting/v1/ApiKey';

export interface CreatedKey {
  'key'?: (_llmgw_accounting_v1_ApiKey | null);
  'secret'?: (string);
}

export interface CreatedKey__Output {
  'key': (_llmgw_accounting_v1_ApiKey__Output | null);
  'secret': (string);
}

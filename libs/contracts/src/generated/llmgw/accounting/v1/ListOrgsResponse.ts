// Original file: llmgw/accounting/v1/accounting.proto

import type { Org as _llmgw_accounting_v1_Org, Org__Output as _llmgw_accounting_v1_Org__Output } from '../../../llmgw/accounting/v1/Org';

export interface ListOrgsResponse {
  'orgs'?: (_llmgw_accounting_v1_Org)[];
}

export interface ListOrgsResponse__Output {
  'orgs': (_llmgw_accounting_v1_Org__Output)[];
}

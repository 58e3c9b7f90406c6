// Original file: llmgw/accounting/v1/accounting.proto

import type { CapacityProfile as _llmgw_accounting_v1_CapacityProfile, CapacityProfile__Output as _llmgw_accounting_v1_CapacityProfile__Output } from '../../../llmgw/accounting/v1/CapacityProfile';

export interface ListCapacityProfilesResponse {
  'profiles'?: (_llmgw_accounting_v1_CapacityProfile)[];
}

export interface ListCapacityProfilesResponse__Output {
  'profiles': (_llmgw_accounting_v1_CapacityProfile__Output)[];
}

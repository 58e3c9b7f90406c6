// Original file: llmgw/control/v1/control.proto

import type { Quota as _llmgw_control_v1_Quota, Quota__Output as _llmgw_control_v1_Quota__Output } from '../../../llmgw/control/v1/Quota';

export interface ListQuotasResponse {
  'quotas'?: (_llmgw_control_v1_Quota)[];
}

export interface ListQuotasResponse__Output {
  'quotas': (_llmgw_control_v1_Quota__Output)[];
}

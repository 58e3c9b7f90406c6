// Original file: llmgw/control/v1/control.proto

import type { Quota as _llmgw_control_v1_Quota, Quota__Output as _llmgw_control_v1_Quota__Output } from '../../../llmgw/control/v1/Quota';

export interface SetQuotaResponse {
  'quota'?: (_llmgw_control_v1_Quota | null);
  'changed'?: (boolean);
}

export interface SetQuotaResponse__Output {
  'quota': (_llmgw_control_v1_Quota__Output | null);
  'changed': (boolean);
}

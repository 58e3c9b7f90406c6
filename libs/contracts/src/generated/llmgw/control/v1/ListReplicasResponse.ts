// Original file: llmgw/control/v1/control.proto

import type { Replica as _llmgw_control_v1_Replica, Replica__Output as _llmgw_control_v1_Replica__Output } from '../../../llmgw/control/v1/Replica';

export interface ListReplicasResponse {
  'replicas'?: (_llmgw_control_v1_Replica)[];
}

export interface ListReplicasResponse__Output {
  'replicas': (_llmgw_control_v1_Replica__Output)[];
}

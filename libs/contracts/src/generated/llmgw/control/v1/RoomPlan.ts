// Original file: llmgw/control/v1/control.proto

import type { RoomVictim as _llmgw_control_v1_RoomVictim, RoomVictim__Output as _llmgw_control_v1_RoomVictim__Output } from '../../../llmgw/control/v1/RoomVictim';
import type { PlacementDecision as _llmgw_control_v1_PlacementDecision, PlacementDecision__Output as _llmgw_control_v1_PlacementDecision__Output } from '../../../llmgw/control/v1/PlacementDecision';

export interface RoomPlan {
  'kind'?: (string);
  'victims'?: (_llmgw_control_v1_RoomVictim)[];
  'decision'?: (_llmgw_control_v1_PlacementDecision | null);
}

export interface RoomPlan__Output {
  'kind': (string);
  'victims': (_llmgw_control_v1_RoomVictim__Output)[];
  'decision': (_llmgw_control_v1_PlacementDecision__Output | null);
}

// Original file: llmgw/control/v1/control.proto

import type { PlacementDecision as _llmgw_control_v1_PlacementDecision, PlacementDecision__Output as _llmgw_control_v1_PlacementDecision__Output } from '../../../llmgw/control/v1/PlacementDecision';
import type { ProfileExplanation as _llmgw_control_v1_ProfileExplanation, ProfileExplanation__Output as _llmgw_control_v1_ProfileExplanation__Output } from '../../../llmgw/control/v1/ProfileExplanation';
import type { RoomPlan as _llmgw_control_v1_RoomPlan, RoomPlan__Output as _llmgw_control_v1_RoomPlan__Output } from '../../../llmgw/control/v1/RoomPlan';

export interface ExplainPlacementResponse {
  'model'?: (string);
  'schedulable'?: (boolean);
  'decision'?: (_llmgw_control_v1_PlacementDecision | null);
  'profiles'?: (_llmgw_control_v1_ProfileExplanation)[];
  'replicasCurrent'?: (number);
  'replicasDesired'?: (number);
  'room'?: (_llmgw_control_v1_RoomPlan | null);
}

export interface ExplainPlacementResponse__Output {
  'model': (string);
  'schedulable': (boolean);
  'decision': (_llmgw_control_v1_PlacementDecision__Output | null);
  'profiles': (_llmgw_control_v1_ProfileExplanation__Output)[];
  'replicasCurrent': (number);
  'replicasDesired': (number);
  'room': (_llmgw_control_v1_RoomPlan__Output | null);
}

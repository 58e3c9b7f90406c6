// Original file: llmgw/control/v1/control.proto

import type { ShardAssignment as _llmgw_control_v1_ShardAssignment, ShardAssignment__Output as _llmgw_control_v1_ShardAssignment__Output } from '../../../llmgw/control/v1/ShardAssignment';

export interface PlacementDecision {
  'profile'?: (string);
  'fabric'?: (string);
  'shards'?: (_llmgw_control_v1_ShardAssignment)[];
}

export interface PlacementDecision__Output {
  'profile': (string);
  'fabric': (string);
  'shards': (_llmgw_control_v1_ShardAssignment__Output)[];
}

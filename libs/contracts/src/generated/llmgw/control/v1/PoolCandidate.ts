// Original file: llmgw/control/v1/control.proto

import type { RejectReason as _llmgw_control_v1_RejectReason, RejectReason__Output as _llmgw_control_v1_RejectReason__Output } from '../../../llmgw/control/v1/RejectReason';
import type { NodeCandidate as _llmgw_control_v1_NodeCandidate, NodeCandidate__Output as _llmgw_control_v1_NodeCandidate__Output } from '../../../llmgw/control/v1/NodeCandidate';

export interface PoolCandidate {
  'pool'?: (string);
  'gpuClass'?: (string);
  'fabric'?: (string);
  'reason'?: (_llmgw_control_v1_RejectReason);
  'detail'?: (string);
  'nodes'?: (_llmgw_control_v1_NodeCandidate)[];
}

export interface PoolCandidate__Output {
  'pool': (string);
  'gpuClass': (string);
  'fabric': (string);
  'reason': (_llmgw_control_v1_RejectReason__Output);
  'detail': (string);
  'nodes': (_llmgw_control_v1_NodeCandidate__Output)[];
}

// Original file: llmgw/control/v1/control.proto

import type { Node as _llmgw_control_v1_Node, Node__Output as _llmgw_control_v1_Node__Output } from '../../../llmgw/control/v1/Node';

export interface NodeAdminResponse {
  'node'?: (_llmgw_control_v1_Node | null);
  'changed'?: (boolean);
  'replicaIds'?: (string)[];
}

export interface NodeAdminResponse__Output {
  'node': (_llmgw_control_v1_Node__Output | null);
  'changed': (boolean);
  'replicaIds': (string)[];
}

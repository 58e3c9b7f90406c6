// Original file: llmgw/control/v1/control.proto

import type { Node as _llmgw_control_v1_Node, Node__Output as _llmgw_control_v1_Node__Output } from '../../../llmgw/control/v1/Node';

export interface ListNodesResponse {
  'nodes'?: (_llmgw_control_v1_Node)[];
  'total'?: (number);
  'matching'?: (number);
  'countsByState'?: ({[key: string]: number});
}

export interface ListNodesResponse__Output {
  'nodes': (_llmgw_control_v1_Node__Output)[];
  'total': (number);
  'matching': (number);
  'countsByState': ({[key: string]: number});
}

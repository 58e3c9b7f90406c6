// Original file: llmgw/inventory/v1/inventory.proto

import type { Node as _llmgw_inventory_v1_Node, Node__Output as _llmgw_inventory_v1_Node__Output } from '../../../llmgw/inventory/v1/Node';

export interface SetNodeIntentResponse {
  'node'?: (_llmgw_inventory_v1_Node | null);
  'changed'?: (boolean);
  'replicaIds'?: (string)[];
}

export interface SetNodeIntentResponse__Output {
  'node': (_llmgw_inventory_v1_Node__Output | null);
  'changed': (boolean);
  'replicaIds': (string)[];
}

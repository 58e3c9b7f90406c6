// Original file: llmgw/inventory/v1/inventory.proto

import type { NodeIntent as _llmgw_inventory_v1_NodeIntent, NodeIntent__Output as _llmgw_inventory_v1_NodeIntent__Output } from '../../../llmgw/inventory/v1/NodeIntent';
import type { Long } from '@grpc/proto-loader';

export interface SetNodeIntentRequest {
  'nodeId'?: (string);
  'intent'?: (_llmgw_inventory_v1_NodeIntent);
  'reason'?: (string);
  'drainTimeoutMs'?: (number | string | Long);
}

export interface SetNodeIntentRequest__Output {
  'nodeId': (string);
  'intent': (_llmgw_inventory_v1_NodeIntent__Output);
  'reason': (string);
  'drainTimeoutMs': (number);
}

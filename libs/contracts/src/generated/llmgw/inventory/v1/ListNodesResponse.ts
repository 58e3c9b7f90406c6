// Original file: llmgw/inventory/v1/inventory.proto

import type { Node as _llmgw_inventory_v1_Node, Node__Output as _llmgw_inventory_v1_Node__Output } from '../../../llmgw/inventory/v1/Node';
import type { StatsReported as _llmgw_inventory_v1_StatsReported, StatsReported__Output as _llmgw_inventory_v1_StatsReported__Output } from '../../../llmgw/inventory/v1/StatsReported';
import type { Long } from '@grpc/proto-loader';

export interface ListNodesResponse {
  'revision'?: (number | string | Long);
  'nodes'?: (_llmgw_inventory_v1_Node)[];
  'epoch'?: (string);
  'stats'?: (_llmgw_inventory_v1_StatsReported)[];
}

export interface ListNodesResponse__Output {
  'revision': (number);
  'nodes': (_llmgw_inventory_v1_Node__Output)[];
  'epoch': (string);
  'stats': (_llmgw_inventory_v1_StatsReported__Output)[];
}

// Original file: llmgw/inventory/v1/inventory.proto

import type { FleetSnapshot as _llmgw_inventory_v1_FleetSnapshot, FleetSnapshot__Output as _llmgw_inventory_v1_FleetSnapshot__Output } from '../../../llmgw/inventory/v1/FleetSnapshot';
import type { Node as _llmgw_inventory_v1_Node, Node__Output as _llmgw_inventory_v1_Node__Output } from '../../../llmgw/inventory/v1/Node';
import type { NodeRemoved as _llmgw_inventory_v1_NodeRemoved, NodeRemoved__Output as _llmgw_inventory_v1_NodeRemoved__Output } from '../../../llmgw/inventory/v1/NodeRemoved';
import type { ShardChanged as _llmgw_inventory_v1_ShardChanged, ShardChanged__Output as _llmgw_inventory_v1_ShardChanged__Output } from '../../../llmgw/inventory/v1/ShardChanged';
import type { StatsReported as _llmgw_inventory_v1_StatsReported, StatsReported__Output as _llmgw_inventory_v1_StatsReported__Output } from '../../../llmgw/inventory/v1/StatsReported';
import type { Long } from '@grpc/proto-loader';

export interface FleetEvent {
  'revision'?: (number | string | Long);
  'atMs'?: (number | string | Long);
  'snapshot'?: (_llmgw_inventory_v1_FleetSnapshot | null);
  'nodeChanged'?: (_llmgw_inventory_v1_Node | null);
  'nodeRemoved'?: (_llmgw_inventory_v1_NodeRemoved | null);
  'shardChanged'?: (_llmgw_inventory_v1_ShardChanged | null);
  'stats'?: (_llmgw_inventory_v1_StatsReported | null);
  'epoch'?: (string);
  'event'?: "snapshot"|"nodeChanged"|"nodeRemoved"|"shardChanged"|"stats";
}

export interface FleetEvent__Output {
  'revision': (number);
  'atMs': (number);
  'snapshot'?: (_llmgw_inventory_v1_FleetSnapshot__Output | null);
  'nodeChanged'?: (_llmgw_inventory_v1_Node__Output | null);
  'nodeRemoved'?: (_llmgw_inventory_v1_NodeRemoved__Output | null);
  'shardChanged'?: (_llmgw_inventory_v1_ShardChanged__Output | null);
  'stats'?: (_llmgw_inventory_v1_StatsReported__Output | null);
  'epoch': (string);
  'event'?: "snapshot"|"nodeChanged"|"nodeRemoved"|"shardChanged"|"stats";
}

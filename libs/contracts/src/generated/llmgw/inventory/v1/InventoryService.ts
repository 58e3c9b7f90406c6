// Original file: llmgw/inventory/v1/inventory.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { FetchLogsRequest as _llmgw_inventory_v1_FetchLogsRequest, FetchLogsRequest__Output as _llmgw_inventory_v1_FetchLogsRequest__Output } from '../../../llmgw/inventory/v1/FetchLogsRequest';
import type { FleetEvent as _llmgw_inventory_v1_FleetEvent, FleetEvent__Output as _llmgw_inventory_v1_FleetEvent__Output } from '../../../llmgw/inventory/v1/FleetEvent';
import type { ListNodesRequest as _llmgw_inventory_v1_ListNodesRequest, ListNodesRequest__Output as _llmgw_inventory_v1_ListNodesRequest__Output } from '../../../llmgw/inventory/v1/ListNodesRequest';
import type { ListNodesResponse as _llmgw_inventory_v1_ListNodesResponse, ListNodesResponse__Output as _llmgw_inventory_v1_ListNodesResponse__Output } from '../../../llmgw/inventory/v1/ListNodesResponse';
import type { LogsReply as _llmgw_agent_v1_LogsReply, LogsReply__Output as _llmgw_agent_v1_LogsReply__Output } from '../../../llmgw/agent/v1/LogsReply';
import type { SetNodeIntentRequest as _llmgw_inventory_v1_SetNodeIntentRequest, SetNodeIntentRequest__Output as _llmgw_inventory_v1_SetNodeIntentRequest__Output } from '../../../llmgw/inventory/v1/SetNodeIntentRequest';
import type { SetNodeIntentResponse as _llmgw_inventory_v1_SetNodeIntentResponse, SetNodeIntentResponse__Output as _llmgw_inventory_v1_SetNodeIntentResponse__Output } from '../../../llmgw/inventory/v1/SetNodeIntentResponse';
import type { ShardCommandRequest as _llmgw_inventory_v1_ShardCommandRequest, ShardCommandRequest__Output as _llmgw_inventory_v1_ShardCommandRequest__Output } from '../../../llmgw/inventory/v1/ShardCommandRequest';
import type { ShardCommandResponse as _llmgw_inventory_v1_ShardCommandResponse, ShardCommandResponse__Output as _llmgw_inventory_v1_ShardCommandResponse__Output } from '../../../llmgw/inventory/v1/ShardCommandResponse';
import type { WatchFleetRequest as _llmgw_inventory_v1_WatchFleetRequest, WatchFleetRequest__Output as _llmgw_inventory_v1_WatchFleetRequest__Output } from '../../../llmgw/inventory/v1/WatchFleetRequest';

export interface InventoryServiceClient extends grpc.Client {
  FetchLogs(argument: _llmgw_inventory_v1_FetchLogsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_agent_v1_LogsReply__Output>;
  FetchLogs(argument: _llmgw_inventory_v1_FetchLogsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_agent_v1_LogsReply__Output>;
  fetchLogs(argument: _llmgw_inventory_v1_FetchLogsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_agent_v1_LogsReply__Output>;
  fetchLogs(argument: _llmgw_inventory_v1_FetchLogsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_agent_v1_LogsReply__Output>;
  
  ListNodes(argument: _llmgw_inventory_v1_ListNodesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  ListNodes(argument: _llmgw_inventory_v1_ListNodesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_inventory_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  ListNodes(argument: _llmgw_inventory_v1_ListNodesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  ListNodes(argument: _llmgw_inventory_v1_ListNodesRequest, callback: grpc.requestCallback<_llmgw_inventory_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _llmgw_inventory_v1_ListNodesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _llmgw_inventory_v1_ListNodesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_inventory_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _llmgw_inventory_v1_ListNodesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _llmgw_inventory_v1_ListNodesRequest, callback: grpc.requestCallback<_llmgw_inventory_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  
  SendShardCommand(argument: _llmgw_inventory_v1_ShardCommandRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_ShardCommandResponse__Output>): grpc.ClientUnaryCall;
  SendShardCommand(argument: _llmgw_inventory_v1_ShardCommandRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_inventory_v1_ShardCommandResponse__Output>): grpc.ClientUnaryCall;
  SendShardCommand(argument: _llmgw_inventory_v1_ShardCommandRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_ShardCommandResponse__Output>): grpc.ClientUnaryCall;
  SendShardCommand(argument: _llmgw_inventory_v1_ShardCommandRequest, callback: grpc.requestCallback<_llmgw_inventory_v1_ShardCommandResponse__Output>): grpc.ClientUnaryCall;
  sendShardCommand(argument: _llmgw_inventory_v1_ShardCommandRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_ShardCommandResponse__Output>): grpc.ClientUnaryCall;
  sendShardCommand(argument: _llmgw_inventory_v1_ShardCommandRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_inventory_v1_ShardCommandResponse__Output>): grpc.ClientUnaryCall;
  sendShardCommand(argument: _llmgw_inventory_v1_ShardCommandRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_ShardCommandResponse__Output>): grpc.ClientUnaryCall;
  sendShardCommand(argument: _llmgw_inventory_v1_ShardCommandRequest, callback: grpc.requestCallback<_llmgw_inventory_v1_ShardCommandResponse__Output>): grpc.ClientUnaryCall;
  
  SetNodeIntent(argument: _llmgw_inventory_v1_SetNodeIntentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_SetNodeIntentResponse__Output>): grpc.ClientUnaryCall;
  SetNodeIntent(argument: _llmgw_inventory_v1_SetNodeIntentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_inventory_v1_SetNodeIntentResponse__Output>): grpc.ClientUnaryCall;
  SetNodeIntent(argument: _llmgw_inventory_v1_SetNodeIntentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_SetNodeIntentResponse__Output>): grpc.ClientUnaryCall;
  SetNodeIntent(argument: _llmgw_inventory_v1_SetNodeIntentRequest, callback: grpc.requestCallback<_llmgw_inventory_v1_SetNodeIntentResponse__Output>): grpc.ClientUnaryCall;
  setNodeIntent(argument: _llmgw_inventory_v1_SetNodeIntentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_SetNodeIntentResponse__Output>): grpc.ClientUnaryCall;
  setNodeIntent(argument: _llmgw_inventory_v1_SetNodeIntentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_inventory_v1_SetNodeIntentResponse__Output>): grpc.ClientUnaryCall;
  setNodeIntent(argument: _llmgw_inventory_v1_SetNodeIntentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_inventory_v1_SetNodeIntentResponse__Output>): grpc.ClientUnaryCall;
  setNodeIntent(argument: _llmgw_inventory_v1_SetNodeIntentRequest, callback: grpc.requestCallback<_llmgw_inventory_v1_SetNodeIntentResponse__Output>): grpc.ClientUnaryCall;
  
  WatchFleet(argument: _llmgw_inventory_v1_WatchFleetRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_inventory_v1_FleetEvent__Output>;
  WatchFleet(argument: _llmgw_inventory_v1_WatchFleetRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_inventory_v1_FleetEvent__Output>;
  watchFleet(argument: _llmgw_inventory_v1_WatchFleetRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_inventory_v1_FleetEvent__Output>;
  watchFleet(argument: _llmgw_inventory_v1_WatchFleetRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_inventory_v1_FleetEvent__Output>;
  
}

export interface InventoryServiceHandlers extends grpc.UntypedServiceImplementation {
  FetchLogs: grpc.handleServerStreamingCall<_llmgw_inventory_v1_FetchLogsRequest__Output, _llmgw_agent_v1_LogsReply>;
  
  ListNodes: grpc.handleUnaryCall<_llmgw_inventory_v1_ListNodesRequest__Output, _llmgw_inventory_v1_ListNodesResponse>;
  
  SendShardCommand: grpc.handleUnaryCall<_llmgw_inventory_v1_ShardCommandRequest__Output, _llmgw_inventory_v1_ShardCommandResponse>;
  
  SetNodeIntent: grpc.handleUnaryCall<_llmgw_inventory_v1_SetNodeIntentRequest__Output, _llmgw_inventory_v1_SetNodeIntentResponse>;
  
  WatchFleet: grpc.handleServerStreamingCall<_llmgw_inventory_v1_WatchFleetRequest__Output, _llmgw_inventory_v1_FleetEvent>;
  
}

export interface InventoryServiceDefinition extends grpc.ServiceDefinition {
  FetchLogs: MethodDefinition<_llmgw_inventory_v1_FetchLogsRequest, _llmgw_agent_v1_LogsReply, _llmgw_inventory_v1_FetchLogsRequest__Output, _llmgw_agent_v1_LogsReply__Output>
  ListNodes: MethodDefinition<_llmgw_inventory_v1_ListNodesRequest, _llmgw_inventory_v1_ListNodesResponse, _llmgw_inventory_v1_ListNodesRequest__Output, _llmgw_inventory_v1_ListNodesResponse__Output>
  SendShardCommand: MethodDefinition<_llmgw_inventory_v1_ShardCommandRequest, _llmgw_inventory_v1_ShardCommandResponse, _llmgw_inventory_v1_ShardCommandRequest__Output, _llmgw_inventory_v1_ShardCommandResponse__Output>
  SetNodeIntent: MethodDefinition<_llmgw_inventory_v1_SetNodeIntentRequest, _llmgw_inventory_v1_SetNodeIntentResponse, _llmgw_inventory_v1_SetNodeIntentRequest__Output, _llmgw_inventory_v1_SetNodeIntentResponse__Output>
  WatchFleet: MethodDefinition<_llmgw_inventory_v1_WatchFleetRequest, _llmgw_inventory_v1_FleetEvent, _llmgw_inventory_v1_WatchFleetRequest__Output, _llmgw_inventory_v1_FleetEvent__Output>
}

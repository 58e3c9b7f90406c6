// Original file: llmgw/control/v1/control.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CordonNodeRequest as _llmgw_control_v1_CordonNodeRequest, CordonNodeRequest__Output as _llmgw_control_v1_CordonNodeRequest__Output } from '../../../llmgw/control/v1/CordonNodeRequest';
import type { DrainNodeRequest as _llmgw_control_v1_DrainNodeRequest, DrainNodeRequest__Output as _llmgw_control_v1_DrainNodeRequest__Output } from '../../../llmgw/control/v1/DrainNodeRequest';
import type { ExplainPlacementRequest as _llmgw_control_v1_ExplainPlacementRequest, ExplainPlacementRequest__Output as _llmgw_control_v1_ExplainPlacementRequest__Output } from '../../../llmgw/control/v1/ExplainPlacementRequest';
import type { ExplainPlacementResponse as _llmgw_control_v1_ExplainPlacementResponse, ExplainPlacementResponse__Output as _llmgw_control_v1_ExplainPlacementResponse__Output } from '../../../llmgw/control/v1/ExplainPlacementResponse';
import type { GetNodeRequest as _llmgw_control_v1_GetNodeRequest, GetNodeRequest__Output as _llmgw_control_v1_GetNodeRequest__Output } from '../../../llmgw/control/v1/GetNodeRequest';
import type { ListModelsRequest as _llmgw_control_v1_ListModelsRequest, ListModelsRequest__Output as _llmgw_control_v1_ListModelsRequest__Output } from '../../../llmgw/control/v1/ListModelsRequest';
import type { ListModelsResponse as _llmgw_control_v1_ListModelsResponse, ListModelsResponse__Output as _llmgw_control_v1_ListModelsResponse__Output } from '../../../llmgw/control/v1/ListModelsResponse';
import type { ListNodesRequest as _llmgw_control_v1_ListNodesRequest, ListNodesRequest__Output as _llmgw_control_v1_ListNodesRequest__Output } from '../../../llmgw/control/v1/ListNodesRequest';
import type { ListNodesResponse as _llmgw_control_v1_ListNodesResponse, ListNodesResponse__Output as _llmgw_control_v1_ListNodesResponse__Output } from '../../../llmgw/control/v1/ListNodesResponse';
import type { ListQuotasRequest as _llmgw_control_v1_ListQuotasRequest, ListQuotasRequest__Output as _llmgw_control_v1_ListQuotasRequest__Output } from '../../../llmgw/control/v1/ListQuotasRequest';
import type { ListQuotasResponse as _llmgw_control_v1_ListQuotasResponse, ListQuotasResponse__Output as _llmgw_control_v1_ListQuotasResponse__Output } from '../../../llmgw/control/v1/ListQuotasResponse';
import type { ListReplicasRequest as _llmgw_control_v1_ListReplicasRequest, ListReplicasRequest__Output as _llmgw_control_v1_ListReplicasRequest__Output } from '../../../llmgw/control/v1/ListReplicasRequest';
import type { ListReplicasResponse as _llmgw_control_v1_ListReplicasResponse, ListReplicasResponse__Output as _llmgw_control_v1_ListReplicasResponse__Output } from '../../../llmgw/control/v1/ListReplicasResponse';
import type { LogsReply as _llmgw_agent_v1_LogsReply, LogsReply__Output as _llmgw_agent_v1_LogsReply__Output } from '../../../llmgw/agent/v1/LogsReply';
import type { LogsRequest as _llmgw_control_v1_LogsRequest, LogsRequest__Output as _llmgw_control_v1_LogsRequest__Output } from '../../../llmgw/control/v1/LogsRequest';
import type { Node as _llmgw_control_v1_Node, Node__Output as _llmgw_control_v1_Node__Output } from '../../../llmgw/control/v1/Node';
import type { NodeAdminResponse as _llmgw_control_v1_NodeAdminResponse, NodeAdminResponse__Output as _llmgw_control_v1_NodeAdminResponse__Output } from '../../../llmgw/control/v1/NodeAdminResponse';
import type { SetModelTargetRequest as _llmgw_control_v1_SetModelTargetRequest, SetModelTargetRequest__Output as _llmgw_control_v1_SetModelTargetRequest__Output } from '../../../llmgw/control/v1/SetModelTargetRequest';
import type { SetModelTargetResponse as _llmgw_control_v1_SetModelTargetResponse, SetModelTargetResponse__Output as _llmgw_control_v1_SetModelTargetResponse__Output } from '../../../llmgw/control/v1/SetModelTargetResponse';
import type { SetQuotaRequest as _llmgw_control_v1_SetQuotaRequest, SetQuotaRequest__Output as _llmgw_control_v1_SetQuotaRequest__Output } from '../../../llmgw/control/v1/SetQuotaRequest';
import type { SetQuotaResponse as _llmgw_control_v1_SetQuotaResponse, SetQuotaResponse__Output as _llmgw_control_v1_SetQuotaResponse__Output } from '../../../llmgw/control/v1/SetQuotaResponse';
import type { UncordonNodeRequest as _llmgw_control_v1_UncordonNodeRequest, UncordonNodeRequest__Output as _llmgw_control_v1_UncordonNodeRequest__Output } from '../../../llmgw/control/v1/UncordonNodeRequest';

export interface ControlServiceClient extends grpc.Client {
  CordonNode(argument: _llmgw_control_v1_CordonNodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  CordonNode(argument: _llmgw_control_v1_CordonNodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  CordonNode(argument: _llmgw_control_v1_CordonNodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  CordonNode(argument: _llmgw_control_v1_CordonNodeRequest, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  cordonNode(argument: _llmgw_control_v1_CordonNodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  cordonNode(argument: _llmgw_control_v1_CordonNodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  cordonNode(argument: _llmgw_control_v1_CordonNodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  cordonNode(argument: _llmgw_control_v1_CordonNodeRequest, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  
  DrainNode(argument: _llmgw_control_v1_DrainNodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  DrainNode(argument: _llmgw_control_v1_DrainNodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  DrainNode(argument: _llmgw_control_v1_DrainNodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  DrainNode(argument: _llmgw_control_v1_DrainNodeRequest, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  drainNode(argument: _llmgw_control_v1_DrainNodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  drainNode(argument: _llmgw_control_v1_DrainNodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  drainNode(argument: _llmgw_control_v1_DrainNodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  drainNode(argument: _llmgw_control_v1_DrainNodeRequest, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  
  ExplainPlacement(argument: _llmgw_control_v1_ExplainPlacementRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ExplainPlacementResponse__Output>): grpc.ClientUnaryCall;
  ExplainPlacement(argument: _llmgw_control_v1_ExplainPlacementRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_ExplainPlacementResponse__Output>): grpc.ClientUnaryCall;
  ExplainPlacement(argument: _llmgw_control_v1_ExplainPlacementRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ExplainPlacementResponse__Output>): grpc.ClientUnaryCall;
  ExplainPlacement(argument: _llmgw_control_v1_ExplainPlacementRequest, callback: grpc.requestCallback<_llmgw_control_v1_ExplainPlacementResponse__Output>): grpc.ClientUnaryCall;
  explainPlacement(argument: _llmgw_control_v1_ExplainPlacementRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ExplainPlacementResponse__Output>): grpc.ClientUnaryCall;
  explainPlacement(argument: _llmgw_control_v1_ExplainPlacementRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_ExplainPlacementResponse__Output>): grpc.ClientUnaryCall;
  explainPlacement(argument: _llmgw_control_v1_ExplainPlacementRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ExplainPlacementResponse__Output>): grpc.ClientUnaryCall;
  explainPlacement(argument: _llmgw_control_v1_ExplainPlacementRequest, callback: grpc.requestCallback<_llmgw_control_v1_ExplainPlacementResponse__Output>): grpc.ClientUnaryCall;
  
  GetNode(argument: _llmgw_control_v1_GetNodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_Node__Output>): grpc.ClientUnaryCall;
  GetNode(argument: _llmgw_control_v1_GetNodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_Node__Output>): grpc.ClientUnaryCall;
  GetNode(argument: _llmgw_control_v1_GetNodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_Node__Output>): grpc.ClientUnaryCall;
  GetNode(argument: _llmgw_control_v1_GetNodeRequest, callback: grpc.requestCallback<_llmgw_control_v1_Node__Output>): grpc.ClientUnaryCall;
  getNode(argument: _llmgw_control_v1_GetNodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_Node__Output>): grpc.ClientUnaryCall;
  getNode(argument: _llmgw_control_v1_GetNodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_Node__Output>): grpc.ClientUnaryCall;
  getNode(argument: _llmgw_control_v1_GetNodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_Node__Output>): grpc.ClientUnaryCall;
  getNode(argument: _llmgw_control_v1_GetNodeRequest, callback: grpc.requestCallback<_llmgw_control_v1_Node__Output>): grpc.ClientUnaryCall;
  
  ListModels(argument: _llmgw_control_v1_ListModelsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListModelsResponse__Output>): grpc.ClientUnaryCall;
  ListModels(argument: _llmgw_control_v1_ListModelsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_ListModelsResponse__Output>): grpc.ClientUnaryCall;
  ListModels(argument: _llmgw_control_v1_ListModelsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListModelsResponse__Output>): grpc.ClientUnaryCall;
  ListModels(argument: _llmgw_control_v1_ListModelsRequest, callback: grpc.requestCallback<_llmgw_control_v1_ListModelsResponse__Output>): grpc.ClientUnaryCall;
  listModels(argument: _llmgw_control_v1_ListModelsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListModelsResponse__Output>): grpc.ClientUnaryCall;
  listModels(argument: _llmgw_control_v1_ListModelsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_ListModelsResponse__Output>): grpc.ClientUnaryCall;
  listModels(argument: _llmgw_control_v1_ListModelsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListModelsResponse__Output>): grpc.ClientUnaryCall;
  listModels(argument: _llmgw_control_v1_ListModelsRequest, callback: grpc.requestCallback<_llmgw_control_v1_ListModelsResponse__Output>): grpc.ClientUnaryCall;
  
  ListNodes(argument: _llmgw_control_v1_ListNodesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  ListNodes(argument: _llmgw_control_v1_ListNodesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  ListNodes(argument: _llmgw_control_v1_ListNodesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  ListNodes(argument: _llmgw_control_v1_ListNodesRequest, callback: grpc.requestCallback<_llmgw_control_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _llmgw_control_v1_ListNodesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _llmgw_control_v1_ListNodesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _llmgw_control_v1_ListNodesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _llmgw_control_v1_ListNodesRequest, callback: grpc.requestCallback<_llmgw_control_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  
  ListQuotas(argument: _llmgw_control_v1_ListQuotasRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListQuotasResponse__Output>): grpc.ClientUnaryCall;
  ListQuotas(argument: _llmgw_control_v1_ListQuotasRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_ListQuotasResponse__Output>): grpc.ClientUnaryCall;
  ListQuotas(argument: _llmgw_control_v1_ListQuotasRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListQuotasResponse__Output>): grpc.ClientUnaryCall;
  ListQuotas(argument: _llmgw_control_v1_ListQuotasRequest, callback: grpc.requestCallback<_llmgw_control_v1_ListQuotasResponse__Output>): grpc.ClientUnaryCall;
  listQuotas(argument: _llmgw_control_v1_ListQuotasRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListQuotasResponse__Output>): grpc.ClientUnaryCall;
  listQuotas(argument: _llmgw_control_v1_ListQuotasRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_ListQuotasResponse__Output>): grpc.ClientUnaryCall;
  listQuotas(argument: _llmgw_control_v1_ListQuotasRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListQuotasResponse__Output>): grpc.ClientUnaryCall;
  listQuotas(argument: _llmgw_control_v1_ListQuotasRequest, callback: grpc.requestCallback<_llmgw_control_v1_ListQuotasResponse__Output>): grpc.ClientUnaryCall;
  
  ListReplicas(argument: _llmgw_control_v1_ListReplicasRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListReplicasResponse__Output>): grpc.ClientUnaryCall;
  ListReplicas(argument: _llmgw_control_v1_ListReplicasRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_ListReplicasResponse__Output>): grpc.ClientUnaryCall;
  ListReplicas(argument: _llmgw_control_v1_ListReplicasRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListReplicasResponse__Output>): grpc.ClientUnaryCall;
  ListReplicas(argument: _llmgw_control_v1_ListReplicasRequest, callback: grpc.requestCallback<_llmgw_control_v1_ListReplicasResponse__Output>): grpc.ClientUnaryCall;
  listReplicas(argument: _llmgw_control_v1_ListReplicasRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListReplicasResponse__Output>): grpc.ClientUnaryCall;
  listReplicas(argument: _llmgw_control_v1_ListReplicasRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_ListReplicasResponse__Output>): grpc.ClientUnaryCall;
  listReplicas(argument: _llmgw_control_v1_ListReplicasRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_ListReplicasResponse__Output>): grpc.ClientUnaryCall;
  listReplicas(argument: _llmgw_control_v1_ListReplicasRequest, callback: grpc.requestCallback<_llmgw_control_v1_ListReplicasResponse__Output>): grpc.ClientUnaryCall;
  
  Logs(argument: _llmgw_control_v1_LogsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_agent_v1_LogsReply__Output>;
  Logs(argument: _llmgw_control_v1_LogsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_agent_v1_LogsReply__Output>;
  logs(argument: _llmgw_control_v1_LogsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_agent_v1_LogsReply__Output>;
  logs(argument: _llmgw_control_v1_LogsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_llmgw_agent_v1_LogsReply__Output>;
  
  SetModelTarget(argument: _llmgw_control_v1_SetModelTargetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_SetModelTargetResponse__Output>): grpc.ClientUnaryCall;
  SetModelTarget(argument: _llmgw_control_v1_SetModelTargetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_SetModelTargetResponse__Output>): grpc.ClientUnaryCall;
  SetModelTarget(argument: _llmgw_control_v1_SetModelTargetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_SetModelTargetResponse__Output>): grpc.ClientUnaryCall;
  SetModelTarget(argument: _llmgw_control_v1_SetModelTargetRequest, callback: grpc.requestCallback<_llmgw_control_v1_SetModelTargetResponse__Output>): grpc.ClientUnaryCall;
  setModelTarget(argument: _llmgw_control_v1_SetModelTargetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_SetModelTargetResponse__Output>): grpc.ClientUnaryCall;
  setModelTarget(argument: _llmgw_control_v1_SetModelTargetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_SetModelTargetResponse__Output>): grpc.ClientUnaryCall;
  setModelTarget(argument: _llmgw_control_v1_SetModelTargetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_SetModelTargetResponse__Output>): grpc.ClientUnaryCall;
  setModelTarget(argument: _llmgw_control_v1_SetModelTargetRequest, callback: grpc.requestCallback<_llmgw_control_v1_SetModelTargetResponse__Output>): grpc.ClientUnaryCall;
  
  SetQuota(argument: _llmgw_control_v1_SetQuotaRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_SetQuotaResponse__Output>): grpc.ClientUnaryCall;
  SetQuota(argument: _llmgw_control_v1_SetQuotaRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_SetQuotaResponse__Output>): grpc.ClientUnaryCall;
  SetQuota(argument: _llmgw_control_v1_SetQuotaRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_SetQuotaResponse__Output>): grpc.ClientUnaryCall;
  SetQuota(argument: _llmgw_control_v1_SetQuotaRequest, callback: grpc.requestCallback<_llmgw_control_v1_SetQuotaResponse__Output>): grpc.ClientUnaryCall;
  setQuota(argument: _llmgw_control_v1_SetQuotaRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_SetQuotaResponse__Output>): grpc.ClientUnaryCall;
  setQuota(argument: _llmgw_control_v1_SetQuotaRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_SetQuotaResponse__Output>): grpc.ClientUnaryCall;
  setQuota(argument: _llmgw_control_v1_SetQuotaRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_SetQuotaResponse__Output>): grpc.ClientUnaryCall;
  setQuota(argument: _llmgw_control_v1_SetQuotaRequest, callback: grpc.requestCallback<_llmgw_control_v1_SetQuotaResponse__Output>): grpc.ClientUnaryCall;
  
  UncordonNode(argument: _llmgw_control_v1_UncordonNodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  UncordonNode(argument: _llmgw_control_v1_UncordonNodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  UncordonNode(argument: _llmgw_control_v1_UncordonNodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  UncordonNode(argument: _llmgw_control_v1_UncordonNodeRequest, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  uncordonNode(argument: _llmgw_control_v1_UncordonNodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  uncordonNode(argument: _llmgw_control_v1_UncordonNodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  uncordonNode(argument: _llmgw_control_v1_UncordonNodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  uncordonNode(argument: _llmgw_control_v1_UncordonNodeRequest, callback: grpc.requestCallback<_llmgw_control_v1_NodeAdminResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ControlServiceHandlers extends grpc.UntypedServiceImplementation {
  CordonNode: grpc.handleUnaryCall<_llmgw_control_v1_CordonNodeRequest__Output, _llmgw_control_v1_NodeAdminResponse>;
  
  DrainNode: grpc.handleUnaryCall<_llmgw_control_v1_DrainNodeRequest__Output, _llmgw_control_v1_NodeAdminResponse>;
  
  ExplainPlacement: grpc.handleUnaryCall<_llmgw_control_v1_ExplainPlacementRequest__Output, _llmgw_control_v1_ExplainPlacementResponse>;
  
  GetNode: grpc.handleUnaryCall<_llmgw_control_v1_GetNodeRequest__Output, _llmgw_control_v1_Node>;
  
  ListModels: grpc.handleUnaryCall<_llmgw_control_v1_ListModelsRequest__Output, _llmgw_control_v1_ListModelsResponse>;
  
  ListNodes: grpc.handleUnaryCall<_llmgw_control_v1_ListNodesRequest__Output, _llmgw_control_v1_ListNodesResponse>;
  
  ListQuotas: grpc.handleUnaryCall<_llmgw_control_v1_ListQuotasRequest__Output, _llmgw_control_v1_ListQuotasResponse>;
  
  ListReplicas: grpc.handleUnaryCall<_llmgw_control_v1_ListReplicasRequest__Output, _llmgw_control_v1_ListReplicasResponse>;
  
  Logs: grpc.handleServerStreamingCall<_llmgw_control_v1_LogsRequest__Output, _llmgw_agent_v1_LogsReply>;
  
  SetModelTarget: grpc.handleUnaryCall<_llmgw_control_v1_SetModelTargetRequest__Output, _llmgw_control_v1_SetModelTargetResponse>;
  
  SetQuota: grpc.handleUnaryCall<_llmgw_control_v1_SetQuotaRequest__Output, _llmgw_control_v1_SetQuotaResponse>;
  
  UncordonNode: grpc.handleUnaryCall<_llmgw_control_v1_UncordonNodeRequest__Output, _llmgw_control_v1_NodeAdminResponse>;
  
}

export interface ControlServiceDefinition extends grpc.ServiceDefinition {
  CordonNode: MethodDefinition<_llmgw_control_v1_CordonNodeRequest, _llmgw_control_v1_NodeAdminResponse, _llmgw_control_v1_CordonNodeRequest__Output, _llmgw_control_v1_NodeAdminResponse__Output>
  DrainNode: MethodDefinition<_llmgw_control_v1_DrainNodeRequest, _llmgw_control_v1_NodeAdminResponse, _llmgw_control_v1_DrainNodeRequest__Output, _llmgw_control_v1_NodeAdminResponse__Output>
  ExplainPlacement: MethodDefinition<_llmgw_control_v1_ExplainPlacementRequest, _llmgw_control_v1_ExplainPlacementResponse, _llmgw_control_v1_ExplainPlacementRequest__Output, _llmgw_control_v1_ExplainPlacementResponse__Output>
  GetNode: MethodDefinition<_llmgw_control_v1_GetNodeRequest, _llmgw_control_v1_Node, _llmgw_control_v1_GetNodeRequest__Output, _llmgw_control_v1_Node__Output>
  ListModels: MethodDefinition<_llmgw_control_v1_ListModelsRequest, _llmgw_control_v1_ListModelsResponse, _llmgw_control_v1_ListModelsRequest__Output, _llmgw_control_v1_ListModelsResponse__Output>
  ListNodes: MethodDefinition<_llmgw_control_v1_ListNodesRequest, _llmgw_control_v1_ListNodesResponse, _llmgw_control_v1_ListNodesRequest__Output, _llmgw_control_v1_ListNodesResponse__Output>
  ListQuotas: MethodDefinition<_llmgw_control_v1_ListQuotasRequest, _llmgw_control_v1_ListQuotasResponse, _llmgw_control_v1_ListQuotasRequest__Output, _llmgw_control_v1_ListQuotasResponse__Output>
  ListReplicas: MethodDefinition<_llmgw_control_v1_ListReplicasRequest, _llmgw_control_v1_ListReplicasResponse, _llmgw_control_v1_ListReplicasRequest__Output, _llmgw_control_v1_ListReplicasResponse__Output>
  Logs: MethodDefinition<_llmgw_control_v1_LogsRequest, _llmgw_agent_v1_LogsReply, _llmgw_control_v1_LogsRequest__Output, _llmgw_agent_v1_LogsReply__Output>
  SetModelTarget: MethodDefinition<_llmgw_control_v1_SetModelTargetRequest, _llmgw_control_v1_SetModelTargetResponse, _llmgw_control_v1_SetModelTargetRequest__Output, _llmgw_control_v1_SetModelTargetResponse__Output>
  SetQuota: MethodDefinition<_llmgw_control_v1_SetQuotaRequest, _llmgw_control_v1_SetQuotaResponse, _llmgw_control_v1_SetQuotaRequest__Output, _llmgw_control_v1_SetQuotaResponse__Output>
  UncordonNode: MethodDefinition<_llmgw_control_v1_UncordonNodeRequest, _llmgw_control_v1_NodeAdminResponse, _llmgw_control_v1_UncordonNodeRequest__Output, _llmgw_control_v1_NodeAdminResponse__Output>
}

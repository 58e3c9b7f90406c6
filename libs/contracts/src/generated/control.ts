import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Ack as _llmgw_agent_v1_Ack, Ack__Output as _llmgw_agent_v1_Ack__Output } from './llmgw/agent/v1/Ack';
import type { AgentMessage as _llmgw_agent_v1_AgentMessage, AgentMessage__Output as _llmgw_agent_v1_AgentMessage__Output } from './llmgw/agent/v1/AgentMessage';
import type { AgentServiceClient as _llmgw_agent_v1_AgentServiceClient, AgentServiceDefinition as _llmgw_agent_v1_AgentServiceDefinition } from './llmgw/agent/v1/AgentService';
import type { ControlMessage as _llmgw_agent_v1_ControlMessage, ControlMessage__Output as _llmgw_agent_v1_ControlMessage__Output } from './llmgw/agent/v1/ControlMessage';
import type { DownloadProgress as _llmgw_agent_v1_DownloadProgress, DownloadProgress__Output as _llmgw_agent_v1_DownloadProgress__Output } from './llmgw/agent/v1/DownloadProgress';
import type { DrainShard as _llmgw_agent_v1_DrainShard, DrainShard__Output as _llmgw_agent_v1_DrainShard__Output } from './llmgw/agent/v1/DrainShard';
import type { EngineStats as _llmgw_agent_v1_EngineStats, EngineStats__Output as _llmgw_agent_v1_EngineStats__Output } from './llmgw/agent/v1/EngineStats';
import type { EngineVersion as _llmgw_agent_v1_EngineVersion, EngineVersion__Output as _llmgw_agent_v1_EngineVersion__Output } from './llmgw/agent/v1/EngineVersion';
import type { FabricAttachment as _llmgw_agent_v1_FabricAttachment, FabricAttachment__Output as _llmgw_agent_v1_FabricAttachment__Output } from './llmgw/agent/v1/FabricAttachment';
import type { Gpu as _llmgw_agent_v1_Gpu, Gpu__Output as _llmgw_agent_v1_Gpu__Output } from './llmgw/agent/v1/Gpu';
import type { GpuHealthReport as _llmgw_agent_v1_GpuHealthReport, GpuHealthReport__Output as _llmgw_agent_v1_GpuHealthReport__Output } from './llmgw/agent/v1/GpuHealthReport';
import type { Hca as _llmgw_agent_v1_Hca, Hca__Output as _llmgw_agent_v1_Hca__Output } from './llmgw/agent/v1/Hca';
import type { HcaPort as _llmgw_agent_v1_HcaPort, HcaPort__Output as _llmgw_agent_v1_HcaPort__Output } from './llmgw/agent/v1/HcaPort';
import type { Heartbeat as _llmgw_agent_v1_Heartbeat, Heartbeat__Output as _llmgw_agent_v1_Heartbeat__Output } from './llmgw/agent/v1/Heartbeat';
import type { HostSensors as _llmgw_agent_v1_HostSensors, HostSensors__Output as _llmgw_agent_v1_HostSensors__Output } from './llmgw/agent/v1/HostSensors';
import type { LogLine as _llmgw_agent_v1_LogLine, LogLine__Output as _llmgw_agent_v1_LogLine__Output } from './llmgw/agent/v1/LogLine';
import type { LogsReply as _llmgw_agent_v1_LogsReply, LogsReply__Output as _llmgw_agent_v1_LogsReply__Output } from './llmgw/agent/v1/LogsReply';
import type { LogsRequest as _llmgw_agent_v1_LogsRequest, LogsRequest__Output as _llmgw_agent_v1_LogsRequest__Output } from './llmgw/agent/v1/LogsRequest';
import type { LoraAdapter as _llmgw_agent_v1_LoraAdapter, LoraAdapter__Output as _llmgw_agent_v1_LoraAdapter__Output } from './llmgw/agent/v1/LoraAdapter';
import type { LoraState as _llmgw_agent_v1_LoraState, LoraState__Output as _llmgw_agent_v1_LoraState__Output } from './llmgw/agent/v1/LoraState';
import type { NodeInfo as _llmgw_agent_v1_NodeInfo, NodeInfo__Output as _llmgw_agent_v1_NodeInfo__Output } from './llmgw/agent/v1/NodeInfo';
import type { NvlinkGroup as _llmgw_agent_v1_NvlinkGroup, NvlinkGroup__Output as _llmgw_agent_v1_NvlinkGroup__Output } from './llmgw/agent/v1/NvlinkGroup';
import type { Register as _llmgw_agent_v1_Register, Register__Output as _llmgw_agent_v1_Register__Output } from './llmgw/agent/v1/Register';
import type { ShardSpec as _llmgw_agent_v1_ShardSpec, ShardSpec__Output as _llmgw_agent_v1_ShardSpec__Output } from './llmgw/agent/v1/ShardSpec';
import type { ShardStatus as _llmgw_agent_v1_ShardStatus, ShardStatus__Output as _llmgw_agent_v1_ShardStatus__Output } from './llmgw/agent/v1/ShardStatus';
import type { StartShard as _llmgw_agent_v1_StartShard, StartShard__Output as _llmgw_agent_v1_StartShard__Output } from './llmgw/agent/v1/StartShard';
import type { StopShard as _llmgw_agent_v1_StopShard, StopShard__Output as _llmgw_agent_v1_StopShard__Output } from './llmgw/agent/v1/StopShard';
import type { Topology as _llmgw_agent_v1_Topology, Topology__Output as _llmgw_agent_v1_Topology__Output } from './llmgw/agent/v1/Topology';
import type { Versions as _llmgw_agent_v1_Versions, Versions__Output as _llmgw_agent_v1_Versions__Output } from './llmgw/agent/v1/Versions';
import type { WeightsSource as _llmgw_agent_v1_WeightsSource, WeightsSource__Output as _llmgw_agent_v1_WeightsSource__Output } from './llmgw/agent/v1/WeightsSource';
import type { AppliedCapacity as _llmgw_control_v1_AppliedCapacity, AppliedCapacity__Output as _llmgw_control_v1_AppliedCapacity__Output } from './llmgw/control/v1/AppliedCapacity';
import type { AppliedProfileCapacity as _llmgw_control_v1_AppliedProfileCapacity, AppliedProfileCapacity__Output as _llmgw_control_v1_AppliedProfileCapacity__Output } from './llmgw/control/v1/AppliedProfileCapacity';
import type { AutoscaleStatus as _llmgw_control_v1_AutoscaleStatus, AutoscaleStatus__Output as _llmgw_control_v1_AutoscaleStatus__Output } from './llmgw/control/v1/AutoscaleStatus';
import type { ControlServiceClient as _llmgw_control_v1_ControlServiceClient, ControlServiceDefinition as _llmgw_control_v1_ControlServiceDefinition } from './llmgw/control/v1/ControlService';
import type { CordonNodeRequest as _llmgw_control_v1_CordonNodeRequest, CordonNodeRequest__Output as _llmgw_control_v1_CordonNodeRequest__Output } from './llmgw/control/v1/CordonNodeRequest';
import type { DrainNodeRequest as _llmgw_control_v1_DrainNodeRequest, DrainNodeRequest__Output as _llmgw_control_v1_DrainNodeRequest__Output } from './llmgw/control/v1/DrainNodeRequest';
import type { ExplainPlacementRequest as _llmgw_control_v1_ExplainPlacementRequest, ExplainPlacementRequest__Output as _llmgw_control_v1_ExplainPlacementRequest__Output } from './llmgw/control/v1/ExplainPlacementRequest';
import type { ExplainPlacementResponse as _llmgw_control_v1_ExplainPlacementResponse, ExplainPlacementResponse__Output as _llmgw_control_v1_ExplainPlacementResponse__Output } from './llmgw/control/v1/ExplainPlacementResponse';
import type { GetNodeRequest as _llmgw_control_v1_GetNodeRequest, GetNodeRequest__Output as _llmgw_control_v1_GetNodeRequest__Output } from './llmgw/control/v1/GetNodeRequest';
import type { GpuAllocation as _llmgw_control_v1_GpuAllocation, GpuAllocation__Output as _llmgw_control_v1_GpuAllocation__Output } from './llmgw/control/v1/GpuAllocation';
import type { ListModelsRequest as _llmgw_control_v1_ListModelsRequest, ListModelsRequest__Output as _llmgw_control_v1_ListModelsRequest__Output } from './llmgw/control/v1/ListModelsRequest';
import type { ListModelsResponse as _llmgw_control_v1_ListModelsResponse, ListModelsResponse__Output as _llmgw_control_v1_ListModelsResponse__Output } from './llmgw/control/v1/ListModelsResponse';
import type { ListNodesRequest as _llmgw_control_v1_ListNodesRequest, ListNodesRequest__Output as _llmgw_control_v1_ListNodesRequest__Output } from './llmgw/control/v1/ListNodesRequest';
import type { ListNodesResponse as _llmgw_control_v1_ListNodesResponse, ListNodesResponse__Output as _llmgw_control_v1_ListNodesResponse__Output } from './llmgw/control/v1/ListNodesResponse';
import type { ListQuotasRequest as _llmgw_control_v1_ListQuotasRequest, ListQuotasRequest__Output as _llmgw_control_v1_ListQuotasRequest__Output } from './llmgw/control/v1/ListQuotasRequest';
import type { ListQuotasResponse as _llmgw_control_v1_ListQuotasResponse, ListQuotasResponse__Output as _llmgw_control_v1_ListQuotasResponse__Output } from './llmgw/control/v1/ListQuotasResponse';
import type { ListReplicasRequest as _llmgw_control_v1_ListReplicasRequest, ListReplicasRequest__Output as _llmgw_control_v1_ListReplicasRequest__Output } from './llmgw/control/v1/ListReplicasRequest';
import type { ListReplicasResponse as _llmgw_control_v1_ListReplicasResponse, ListReplicasResponse__Output as _llmgw_control_v1_ListReplicasResponse__Output } from './llmgw/control/v1/ListReplicasResponse';
import type { LogsRequest as _llmgw_control_v1_LogsRequest, LogsRequest__Output as _llmgw_control_v1_LogsRequest__Output } from './llmgw/control/v1/LogsRequest';
import type { Model as _llmgw_control_v1_Model, Model__Output as _llmgw_control_v1_Model__Output } from './llmgw/control/v1/Model';
import type { Node as _llmgw_control_v1_Node, Node__Output as _llmgw_control_v1_Node__Output } from './llmgw/control/v1/Node';
import type { NodeAdminResponse as _llmgw_control_v1_NodeAdminResponse, NodeAdminResponse__Output as _llmgw_control_v1_NodeAdminResponse__Output } from './llmgw/control/v1/NodeAdminResponse';
import type { NodeCandidate as _llmgw_control_v1_NodeCandidate, NodeCandidate__Output as _llmgw_control_v1_NodeCandidate__Output } from './llmgw/control/v1/NodeCandidate';
import type { PlacementDecision as _llmgw_control_v1_PlacementDecision, PlacementDecision__Output as _llmgw_control_v1_PlacementDecision__Output } from './llmgw/control/v1/PlacementDecision';
import type { PoolCandidate as _llmgw_control_v1_PoolCandidate, PoolCandidate__Output as _llmgw_control_v1_PoolCandidate__Output } from './llmgw/control/v1/PoolCandidate';
import type { Profile as _llmgw_control_v1_Profile, Profile__Output as _llmgw_control_v1_Profile__Output } from './llmgw/control/v1/Profile';
import type { ProfileExplanation as _llmgw_control_v1_ProfileExplanation, ProfileExplanation__Output as _llmgw_control_v1_ProfileExplanation__Output } from './llmgw/control/v1/ProfileExplanation';
import type { Quota as _llmgw_control_v1_Quota, Quota__Output as _llmgw_control_v1_Quota__Output } from './llmgw/control/v1/Quota';
import type { Replica as _llmgw_control_v1_Replica, Replica__Output as _llmgw_control_v1_Replica__Output } from './llmgw/control/v1/Replica';
import type { ReplicaShard as _llmgw_control_v1_ReplicaShard, ReplicaShard__Output as _llmgw_control_v1_ReplicaShard__Output } from './llmgw/control/v1/ReplicaShard';
import type { RoomPlan as _llmgw_control_v1_RoomPlan, RoomPlan__Output as _llmgw_control_v1_RoomPlan__Output } from './llmgw/control/v1/RoomPlan';
import type { RoomVictim as _llmgw_control_v1_RoomVictim, RoomVictim__Output as _llmgw_control_v1_RoomVictim__Output } from './llmgw/control/v1/RoomVictim';
import type { Scaling as _llmgw_control_v1_Scaling, Scaling__Output as _llmgw_control_v1_Scaling__Output } from './llmgw/control/v1/Scaling';
import type { SetModelTargetRequest as _llmgw_control_v1_SetModelTargetRequest, SetModelTargetRequest__Output as _llmgw_control_v1_SetModelTargetRequest__Output } from './llmgw/control/v1/SetModelTargetRequest';
import type { SetModelTargetResponse as _llmgw_control_v1_SetModelTargetResponse, SetModelTargetResponse__Output as _llmgw_control_v1_SetModelTargetResponse__Output } from './llmgw/control/v1/SetModelTargetResponse';
import type { SetQuotaRequest as _llmgw_control_v1_SetQuotaRequest, SetQuotaRequest__Output as _llmgw_control_v1_SetQuotaRequest__Output } from './llmgw/control/v1/SetQuotaRequest';
import type { SetQuotaResponse as _llmgw_control_v1_SetQuotaResponse, SetQuotaResponse__Output as _llmgw_control_v1_SetQuotaResponse__Output } from './llmgw/control/v1/SetQuotaResponse';
import type { ShardAssignment as _llmgw_control_v1_ShardAssignment, ShardAssignment__Output as _llmgw_control_v1_ShardAssignment__Output } from './llmgw/control/v1/ShardAssignment';
import type { UncordonNodeRequest as _llmgw_control_v1_UncordonNodeRequest, UncordonNodeRequest__Output as _llmgw_control_v1_UncordonNodeRequest__Output } from './llmgw/control/v1/UncordonNodeRequest';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  llmgw: {
    agent: {
      v1: {
        Ack: MessageTypeDefinition<_llmgw_agent_v1_Ack, _llmgw_agent_v1_Ack__Output>
        AckResult: EnumTypeDefinition
        AgentMessage: MessageTypeDefinition<_llmgw_agent_v1_AgentMessage, _llmgw_agent_v1_AgentMessage__Output>
        AgentService: SubtypeConstructor<typeof grpc.Client, _llmgw_agent_v1_AgentServiceClient> & { service: _llmgw_agent_v1_AgentServiceDefinition }
        ControlMessage: MessageTypeDefinition<_llmgw_agent_v1_ControlMessage, _llmgw_agent_v1_ControlMessage__Output>
        DownloadProgress: MessageTypeDefinition<_llmgw_agent_v1_DownloadProgress, _llmgw_agent_v1_DownloadProgress__Output>
        DrainShard: MessageTypeDefinition<_llmgw_agent_v1_DrainShard, _llmgw_agent_v1_DrainShard__Output>
        EngineStats: MessageTypeDefinition<_llmgw_agent_v1_EngineStats, _llmgw_agent_v1_EngineStats__Output>
        EngineVersion: MessageTypeDefinition<_llmgw_agent_v1_EngineVersion, _llmgw_agent_v1_EngineVersion__Output>
        FabricAttachment: MessageTypeDefinition<_llmgw_agent_v1_FabricAttachment, _llmgw_agent_v1_FabricAttachment__Output>
        FabricSource: EnumTypeDefinition
        Gpu: MessageTypeDefinition<_llmgw_agent_v1_Gpu, _llmgw_agent_v1_Gpu__Output>
        GpuHealth: EnumTypeDefinition
        GpuHealthReport: MessageTypeDefinition<_llmgw_agent_v1_GpuHealthReport, _llmgw_agent_v1_GpuHealthReport__Output>
        Hca: MessageTypeDefinition<_llmgw_agent_v1_Hca, _llmgw_agent_v1_Hca__Output>
        HcaPort: MessageTypeDefinition<_llmgw_agent_v1_HcaPort, _llmgw_agent_v1_HcaPort__Output>
        Heartbeat: MessageTypeDefinition<_llmgw_agent_v1_Heartbeat, _llmgw_agent_v1_Heartbeat__Output>
        HostSensors: MessageTypeDefinition<_llmgw_agent_v1_HostSensors, _llmgw_agent_v1_HostSensors__Output>
        LinkLayer: EnumTypeDefinition
        LogLine: MessageTypeDefinition<_llmgw_agent_v1_LogLine, _llmgw_agent_v1_LogLine__Output>
        LogSource: EnumTypeDefinition
        LogStream: EnumTypeDefinition
        LogsReply: MessageTypeDefinition<_llmgw_agent_v1_LogsReply, _llmgw_agent_v1_LogsReply__Output>
        LogsRequest: MessageTypeDefinition<_llmgw_agent_v1_LogsRequest, _llmgw_agent_v1_LogsRequest__Output>
        LoraAdapter: MessageTypeDefinition<_llmgw_agent_v1_LoraAdapter, _llmgw_agent_v1_LoraAdapter__Output>
        LoraState: MessageTypeDefinition<_llmgw_agent_v1_LoraState, _llmgw_agent_v1_LoraState__Output>
        MigMode: EnumTypeDefinition
        NodeInfo: MessageTypeDefinition<_llmgw_agent_v1_NodeInfo, _llmgw_agent_v1_NodeInfo__Output>
        NvlinkGroup: MessageTypeDefinition<_llmgw_agent_v1_NvlinkGroup, _llmgw_agent_v1_NvlinkGroup__Output>
        PortState: EnumTypeDefinition
        Register: MessageTypeDefinition<_llmgw_agent_v1_Register, _llmgw_agent_v1_Register__Output>
        ShardSpec: MessageTypeDefinition<_llmgw_agent_v1_ShardSpec, _llmgw_agent_v1_ShardSpec__Output>
        ShardState: EnumTypeDefinition
        ShardStatus: MessageTypeDefinition<_llmgw_agent_v1_ShardStatus, _llmgw_agent_v1_ShardStatus__Output>
        StartShard: MessageTypeDefinition<_llmgw_agent_v1_StartShard, _llmgw_agent_v1_StartShard__Output>
        StopShard: MessageTypeDefinition<_llmgw_agent_v1_StopShard, _llmgw_agent_v1_StopShard__Output>
        Topology: MessageTypeDefinition<_llmgw_agent_v1_Topology, _llmgw_agent_v1_Topology__Output>
        Versions: MessageTypeDefinition<_llmgw_agent_v1_Versions, _llmgw_agent_v1_Versions__Output>
        WeightsSource: MessageTypeDefinition<_llmgw_agent_v1_WeightsSource, _llmgw_agent_v1_WeightsSource__Output>
      }
    }
    control: {
      v1: {
        AppliedCapacity: MessageTypeDefinition<_llmgw_control_v1_AppliedCapacity, _llmgw_control_v1_AppliedCapacity__Output>
        AppliedProfileCapacity: MessageTypeDefinition<_llmgw_control_v1_AppliedProfileCapacity, _llmgw_control_v1_AppliedProfileCapacity__Output>
        AutoscaleStatus: MessageTypeDefinition<_llmgw_control_v1_AutoscaleStatus, _llmgw_control_v1_AutoscaleStatus__Output>
        ControlService: SubtypeConstructor<typeof grpc.Client, _llmgw_control_v1_ControlServiceClient> & { service: _llmgw_control_v1_ControlServiceDefinition }
        CordonNodeRequest: MessageTypeDefinition<_llmgw_control_v1_CordonNodeRequest, _llmgw_control_v1_CordonNodeRequest__Output>
        DrainNodeRequest: MessageTypeDefinition<_llmgw_control_v1_DrainNodeRequest, _llmgw_control_v1_DrainNodeRequest__Output>
        ExplainPlacementRequest: MessageTypeDefinition<_llmgw_control_v1_ExplainPlacementRequest, _llmgw_control_v1_ExplainPlacementRequest__Output>
        ExplainPlacementResponse: MessageTypeDefinition<_llmgw_control_v1_ExplainPlacementResponse, _llmgw_control_v1_ExplainPlacementResponse__Output>
        GetNodeRequest: MessageTypeDefinition<_llmgw_control_v1_GetNodeRequest, _llmgw_control_v1_GetNodeRequest__Output>
        GpuAllocation: MessageTypeDefinition<_llmgw_control_v1_GpuAllocation, _llmgw_control_v1_GpuAllocation__Output>
        ListModelsRequest: MessageTypeDefinition<_llmgw_control_v1_ListModelsRequest, _llmgw_control_v1_ListModelsRequest__Output>
        ListModelsResponse: MessageTypeDefinition<_llmgw_control_v1_ListModelsResponse, _llmgw_control_v1_ListModelsResponse__Output>
        ListNodesRequest: MessageTypeDefinition<_llmgw_control_v1_ListNodesRequest, _llmgw_control_v1_ListNodesRequest__Output>
        ListNodesResponse: MessageTypeDefinition<_llmgw_control_v1_ListNodesResponse, _llmgw_control_v1_ListNodesResponse__Output>
        ListQuotasRequest: MessageTypeDefinition<_llmgw_control_v1_ListQuotasRequest, _llmgw_control_v1_ListQuotasRequest__Output>
        ListQuotasResponse: MessageTypeDefinition<_llmgw_control_v1_ListQuotasResponse, _llmgw_control_v1_ListQuotasResponse__Output>
        ListReplicasRequest: MessageTypeDefinition<_llmgw_control_v1_ListReplicasRequest, _llmgw_control_v1_ListReplicasRequest__Output>
        ListReplicasResponse: MessageTypeDefinition<_llmgw_control_v1_ListReplicasResponse, _llmgw_control_v1_ListReplicasResponse__Output>
        LogsRequest: MessageTypeDefinition<_llmgw_control_v1_LogsRequest, _llmgw_control_v1_LogsRequest__Output>
        Model: MessageTypeDefinition<_llmgw_control_v1_Model, _llmgw_control_v1_Model__Output>
        Node: MessageTypeDefinition<_llmgw_control_v1_Node, _llmgw_control_v1_Node__Output>
        NodeAdminResponse: MessageTypeDefinition<_llmgw_control_v1_NodeAdminResponse, _llmgw_control_v1_NodeAdminResponse__Output>
        NodeCandidate: MessageTypeDefinition<_llmgw_control_v1_NodeCandidate, _llmgw_control_v1_NodeCandidate__Output>
        NodeState: EnumTypeDefinition
        PlacementDecision: MessageTypeDefinition<_llmgw_control_v1_PlacementDecision, _llmgw_control_v1_PlacementDecision__Output>
        PoolCandidate: MessageTypeDefinition<_llmgw_control_v1_PoolCandidate, _llmgw_control_v1_PoolCandidate__Output>
        Profile: MessageTypeDefinition<_llmgw_control_v1_Profile, _llmgw_control_v1_Profile__Output>
        ProfileExplanation: MessageTypeDefinition<_llmgw_control_v1_ProfileExplanation, _llmgw_control_v1_ProfileExplanation__Output>
        Quota: MessageTypeDefinition<_llmgw_control_v1_Quota, _llmgw_control_v1_Quota__Output>
        RejectReason: EnumTypeDefinition
        Replica: MessageTypeDefinition<_llmgw_control_v1_Replica, _llmgw_control_v1_Replica__Output>
        ReplicaShard: MessageTypeDefinition<_llmgw_control_v1_ReplicaShard, _llmgw_control_v1_ReplicaShard__Output>
        ReplicaState: EnumTypeDefinition
        RoomPlan: MessageTypeDefinition<_llmgw_control_v1_RoomPlan, _llmgw_control_v1_RoomPlan__Output>
        RoomVictim: MessageTypeDefinition<_llmgw_control_v1_RoomVictim, _llmgw_control_v1_RoomVictim__Output>
        Scaling: MessageTypeDefinition<_llmgw_control_v1_Scaling, _llmgw_control_v1_Scaling__Output>
        SetModelTargetRequest: MessageTypeDefinition<_llmgw_control_v1_SetModelTargetRequest, _llmgw_control_v1_SetModelTargetRequest__Output>
        SetModelTargetResponse: MessageTypeDefinition<_llmgw_control_v1_SetModelTargetResponse, _llmgw_control_v1_SetModelTargetResponse__Output>
        SetQuotaRequest: MessageTypeDefinition<_llmgw_control_v1_SetQuotaRequest, _llmgw_control_v1_SetQuotaRequest__Output>
        SetQuotaResponse: MessageTypeDefinition<_llmgw_control_v1_SetQuotaResponse, _llmgw_control_v1_SetQuotaResponse__Output>
        ShardAssignment: MessageTypeDefinition<_llmgw_control_v1_ShardAssignment, _llmgw_control_v1_ShardAssignment__Output>
        UncordonNodeRequest: MessageTypeDefinition<_llmgw_control_v1_UncordonNodeRequest, _llmgw_control_v1_UncordonNodeRequest__Output>
      }
    }
  }
}


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
  }
}


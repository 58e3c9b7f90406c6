import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { EngineVersion as _llmgw_agent_v1_EngineVersion, EngineVersion__Output as _llmgw_agent_v1_EngineVersion__Output } from './llmgw/agent/v1/EngineVersion';
import type { FabricAttachment as _llmgw_agent_v1_FabricAttachment, FabricAttachment__Output as _llmgw_agent_v1_FabricAttachment__Output } from './llmgw/agent/v1/FabricAttachment';
import type { Gpu as _llmgw_agent_v1_Gpu, Gpu__Output as _llmgw_agent_v1_Gpu__Output } from './llmgw/agent/v1/Gpu';
import type { GpuHealthReport as _llmgw_agent_v1_GpuHealthReport, GpuHealthReport__Output as _llmgw_agent_v1_GpuHealthReport__Output } from './llmgw/agent/v1/GpuHealthReport';
import type { Hca as _llmgw_agent_v1_Hca, Hca__Output as _llmgw_agent_v1_Hca__Output } from './llmgw/agent/v1/Hca';
import type { HcaPort as _llmgw_agent_v1_HcaPort, HcaPort__Output as _llmgw_agent_v1_HcaPort__Output } from './llmgw/agent/v1/HcaPort';
import type { NodeInfo as _llmgw_agent_v1_NodeInfo, NodeInfo__Output as _llmgw_agent_v1_NodeInfo__Output } from './llmgw/agent/v1/NodeInfo';
import type { NvlinkGroup as _llmgw_agent_v1_NvlinkGroup, NvlinkGroup__Output as _llmgw_agent_v1_NvlinkGroup__Output } from './llmgw/agent/v1/NvlinkGroup';
import type { Topology as _llmgw_agent_v1_Topology, Topology__Output as _llmgw_agent_v1_Topology__Output } from './llmgw/agent/v1/Topology';
import type { Versions as _llmgw_agent_v1_Versions, Versions__Output as _llmgw_agent_v1_Versions__Output } from './llmgw/agent/v1/Versions';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  llmgw: {
    agent: {
      v1: {
        EngineVersion: MessageTypeDefinition<_llmgw_agent_v1_EngineVersion, _llmgw_agent_v1_EngineVersion__Output>
        FabricAttachment: MessageTypeDefinition<_llmgw_agent_v1_FabricAttachment, _llmgw_agent_v1_FabricAttachment__Output>
        FabricSource: EnumTypeDefinition
        Gpu: MessageTypeDefinition<_llmgw_agent_v1_Gpu, _llmgw_agent_v1_Gpu__Output>
        GpuHealth: EnumTypeDefinition
        GpuHealthReport: MessageTypeDefinition<_llmgw_agent_v1_GpuHealthReport, _llmgw_agent_v1_GpuHealthReport__Output>
        Hca: MessageTypeDefinition<_llmgw_agent_v1_Hca, _llmgw_agent_v1_Hca__Output>
        HcaPort: MessageTypeDefinition<_llmgw_agent_v1_HcaPort, _llmgw_agent_v1_HcaPort__Output>
        LinkLayer: EnumTypeDefinition
        MigMode: EnumTypeDefinition
        NodeInfo: MessageTypeDefinition<_llmgw_agent_v1_NodeInfo, _llmgw_agent_v1_NodeInfo__Output>
        NvlinkGroup: MessageTypeDefinition<_llmgw_agent_v1_NvlinkGroup, _llmgw_agent_v1_NvlinkGroup__Output>
        PortState: EnumTypeDefinition
        Topology: MessageTypeDefinition<_llmgw_agent_v1_Topology, _llmgw_agent_v1_Topology__Output>
        Versions: MessageTypeDefinition<_llmgw_agent_v1_Versions, _llmgw_agent_v1_Versions__Output>
      }
    }
  }
}


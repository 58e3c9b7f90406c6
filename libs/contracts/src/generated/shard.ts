import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { DownloadProgress as _llmgw_agent_v1_DownloadProgress, DownloadProgress__Output as _llmgw_agent_v1_DownloadProgress__Output } from './llmgw/agent/v1/DownloadProgress';
import type { ShardSpec as _llmgw_agent_v1_ShardSpec, ShardSpec__Output as _llmgw_agent_v1_ShardSpec__Output } from './llmgw/agent/v1/ShardSpec';
import type { ShardStatus as _llmgw_agent_v1_ShardStatus, ShardStatus__Output as _llmgw_agent_v1_ShardStatus__Output } from './llmgw/agent/v1/ShardStatus';
import type { WeightsSource as _llmgw_agent_v1_WeightsSource, WeightsSource__Output as _llmgw_agent_v1_WeightsSource__Output } from './llmgw/agent/v1/WeightsSource';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  llmgw: {
    agent: {
      v1: {
        DownloadProgress: MessageTypeDefinition<_llmgw_agent_v1_DownloadProgress, _llmgw_agent_v1_DownloadProgress__Output>
        ShardSpec: MessageTypeDefinition<_llmgw_agent_v1_ShardSpec, _llmgw_agent_v1_ShardSpec__Output>
        ShardState: EnumTypeDefinition
        ShardStatus: MessageTypeDefinition<_llmgw_agent_v1_ShardStatus, _llmgw_agent_v1_ShardStatus__Output>
        WeightsSource: MessageTypeDefinition<_llmgw_agent_v1_WeightsSource, _llmgw_agent_v1_WeightsSource__Output>
      }
    }
  }
}


import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { EngineStats as _llmgw_agent_v1_EngineStats, EngineStats__Output as _llmgw_agent_v1_EngineStats__Output } from './llmgw/agent/v1/EngineStats';
import type { LoraState as _llmgw_agent_v1_LoraState, LoraState__Output as _llmgw_agent_v1_LoraState__Output } from './llmgw/agent/v1/LoraState';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  llmgw: {
    agent: {
      v1: {
        EngineStats: MessageTypeDefinition<_llmgw_agent_v1_EngineStats, _llmgw_agent_v1_EngineStats__Output>
        LoraState: MessageTypeDefinition<_llmgw_agent_v1_LoraState, _llmgw_agent_v1_LoraState__Output>
      }
    }
  }
}


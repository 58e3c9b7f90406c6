// Original file: llmgw/agent/v1/agent.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AgentMessage as _llmgw_agent_v1_AgentMessage, AgentMessage__Output as _llmgw_agent_v1_AgentMessage__Output } from '../../../llmgw/agent/v1/AgentMessage';
import type { ControlMessage as _llmgw_agent_v1_ControlMessage, ControlMessage__Output as _llmgw_agent_v1_ControlMessage__Output } from '../../../llmgw/agent/v1/ControlMessage';

export interface AgentServiceClient extends grpc.Client {
  Connect(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_llmgw_agent_v1_AgentMessage, _llmgw_agent_v1_ControlMessage__Output>;
  Connect(options?: grpc.CallOptions): grpc.ClientDuplexStream<_llmgw_agent_v1_AgentMessage, _llmgw_agent_v1_ControlMessage__Output>;
  connect(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_llmgw_agent_v1_AgentMessage, _llmgw_agent_v1_ControlMessage__Output>;
  connect(options?: grpc.CallOptions): grpc.ClientDuplexStream<_llmgw_agent_v1_AgentMessage, _llmgw_agent_v1_ControlMessage__Output>;
  
}

export interface AgentServiceHandlers extends grpc.UntypedServiceImplementation {
  Connect: grpc.handleBidiStreamingCall<_llmgw_agent_v1_AgentMessage__Output, _llmgw_agent_v1_ControlMessage>;
  
}

export interface AgentServiceDefinition extends grpc.ServiceDefinition {
  Connect: MethodDefinition<_llmgw_agent_v1_AgentMessage, _llmgw_agent_v1_ControlMessage, _llmgw_agent_v1_AgentMessage__Output, _llmgw_agent_v1_ControlMessage__Output>
}

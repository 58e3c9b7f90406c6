import type * as grpc from '@grpc/grpc-js';
import { agentV1, loadProto } from '@llmgw/contracts';

/** The generated AgentService package (proto/llmgw/agent/v1/agent.proto), loaded once. */
export function agentProto() {
  return loadProto('llmgw/agent/v1/agent.proto').llmgw.agent.v1;
}

/** The AgentService definition a server adds handlers for. */
export function agentServiceDefinition(): agentV1.AgentServiceDefinition {
  return agentProto().AgentService.service as agentV1.AgentServiceDefinition;
}

/** The generated client constructor (`makeClient(agentServiceClient(), addr, { tls })`). */
export function agentServiceClient(): new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => agentV1.AgentServiceClient {
  return agentProto().AgentService as any;
}

/** A node id as NodeInfo.node_id documents it: [a-z0-9.-], at most 63, starting alphanumeric. */
export const NODE_ID_PATTERN = /^[a-z0-9][a-z0-9.-]{0,62}$/;

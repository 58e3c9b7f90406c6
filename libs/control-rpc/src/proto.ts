import type * as grpc from '@grpc/grpc-js';
import { loadProto, type controlV1 } from '@llmgw/contracts';

export const CONTROL_PROTO = 'llmgw/control/v1/control.proto';
/** The gRPC service name, for health checks. */
export const CONTROL_SERVICE = 'llmgw.control.v1.ControlService';

type Ctor<C> = new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => C;

/** The generated client constructor of llmgw.control.v1.ControlService (loaded once by @llmgw/contracts). */
export function controlClientConstructor(): Ctor<controlV1.ControlServiceClient> & { service: controlV1.ControlServiceDefinition } {
  return loadProto(CONTROL_PROTO).llmgw.control.v1.ControlService as any;
}

export function controlServiceDefinition(): controlV1.ControlServiceDefinition {
  return controlClientConstructor().service;
}

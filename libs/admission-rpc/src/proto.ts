import type * as grpc from '@grpc/grpc-js';
import { loadProto, type admissionV1 } from '@llmgw/contracts';

export const ADMISSION_PROTO = 'llmgw/admission/v1/admission.proto';

type Ctor<C> = new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => C;

/**
 * The generated client constructor of llmgw.admission.v1.Admission, loaded by
 * @llmgw/contracts' `loadProto` (PROTO_LOADER_OPTIONS, cached, honours
 * `setProtoRoot` for bundles).
 */
export function admissionClientConstructor(): Ctor<admissionV1.AdmissionClient> & { service: admissionV1.AdmissionDefinition } {
  return loadProto(ADMISSION_PROTO).llmgw.admission.v1.Admission;
}

export function admissionServiceDefinition(): admissionV1.AdmissionDefinition {
  return admissionClientConstructor().service;
}

import type * as grpc from '@grpc/grpc-js';
import { loadProto } from '@llmgw/contracts';

export const ADMISSION_PROTO = 'llmgw/admission/v1/admission.proto';

/**
 * The client constructor for llmgw.admission.v1.Admission, loaded by
 * @llmgw/contracts' `loadProto` (PROTO_LOADER_OPTIONS, cached, honours
 * `setProtoRoot` for bundles).
 */
export function admissionClientConstructor(): grpc.ServiceClientConstructor {
  const pkg = loadProto<{ llmgw: { admission: { v1: { Admission: grpc.ServiceClientConstructor } } } }>(ADMISSION_PROTO);
  return pkg.llmgw.admission.v1.Admission;
}

export function admissionServiceDefinition(): grpc.ServiceDefinition {
  return admissionClientConstructor().service;
}

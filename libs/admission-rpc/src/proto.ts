import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROTO_LOADER_OPTIONS } from '@llmgw/contracts';

export const ADMISSION_PROTO = 'llmgw/admission/v1/admission.proto';

function protoRoot(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'proto', ADMISSION_PROTO))) return join(dir, 'proto');
    if (dirname(dir) === dir) throw new Error(`no proto/${ADMISSION_PROTO} above ${__dirname}`);
  }
}

let ctor: grpc.ServiceClientConstructor | undefined;

/** The generated client constructor for llmgw.admission.v1.Admission (loaded once, with PROTO_LOADER_OPTIONS). */
export function admissionClientConstructor(): grpc.ServiceClientConstructor {
  if (!ctor) {
    const def = protoLoader.loadSync(ADMISSION_PROTO, { ...PROTO_LOADER_OPTIONS, includeDirs: [protoRoot()] });
    const pkg = grpc.loadPackageDefinition(def) as any;
    ctor = pkg.llmgw.admission.v1.Admission as grpc.ServiceClientConstructor;
  }
  return ctor;
}

export function admissionServiceDefinition(): grpc.ServiceDefinition {
  return admissionClientConstructor().service;
}

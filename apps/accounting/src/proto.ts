import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_LOADER_OPTIONS } from '@llmgw/contracts';
import type { AccountingProto as ProtoGrpcType } from '@llmgw/contracts';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const ACCOUNTING_PROTO = 'llmgw/accounting/v1/accounting.proto';

function findProtoRoot(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'proto', ACCOUNTING_PROTO))) return join(dir, 'proto');
    if (dirname(dir) === dir) throw new Error(`no proto/${ACCOUNTING_PROTO} above ${__dirname}`);
  }
}

let cached: ProtoGrpcType | undefined;

/** The accounting proto package, loaded with the options its types were generated with. */
export function accountingProto(): ProtoGrpcType['llmgw']['accounting']['v1'] {
  if (!cached) {
    const def = protoLoader.loadSync(ACCOUNTING_PROTO, { ...PROTO_LOADER_OPTIONS, includeDirs: [findProtoRoot()] });
    cached = grpc.loadPackageDefinition(def) as unknown as ProtoGrpcType;
  }
  return cached.llmgw.accounting.v1;
}

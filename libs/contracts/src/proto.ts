import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PROTO_LOADER_OPTIONS } from './loader-options';
import type { ProtoGrpcType as AccountingProto } from './generated/accounting';
import type { ProtoGrpcType as AdmissionProto } from './generated/admission';
import type { ProtoGrpcType as AgentProto } from './generated/agent';
import type { ProtoGrpcType as ControlProto } from './generated/control';
import type { ProtoGrpcType as InventoryProto } from './generated/inventory';

/** The generated `ProtoGrpcType` of each service entry file, keyed by its path under proto/. */
export interface ProtoTypes {
  'llmgw/agent/v1/agent.proto': AgentProto;
  'llmgw/inventory/v1/inventory.proto': InventoryProto;
  'llmgw/control/v1/control.proto': ControlProto;
  'llmgw/admission/v1/admission.proto': AdmissionProto;
  'llmgw/accounting/v1/accounting.proto': AccountingProto;
}

let root: string | undefined;

/**
 * The proto/ folder: the nearest one above this file (works from sources,
 * from Jest and from a bundle that ships proto/ next to it), unless
 * `setProtoRoot` named one.
 */
export function protoRoot(): string {
  if (root) return root;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'proto', 'llmgw'))) return (root = join(dir, 'proto'));
    if (dirname(dir) === dir) throw new Error(`no proto/ folder above ${__dirname}; call setProtoRoot()`);
  }
}

/** Points loading at another proto/ folder (e.g. one shipped beside a bundle). */
export function setProtoRoot(dir: string): void {
  root = resolve(dir);
  cache.clear();
}

/** The absolute path of a file under proto/ ("llmgw/agent/v1/agent.proto"). */
export function protoPath(rel: string): string {
  return join(protoRoot(), rel);
}

const cache = new Map<string, unknown>();

/**
 * Loads a proto (and its imports) with PROTO_LOADER_OPTIONS — the options
 * the generated types were made with — and returns the grpc-js package
 * object, typed by its generated `ProtoGrpcType`. Cached per file.
 */
export function loadProto<K extends keyof ProtoTypes>(rel: K): ProtoTypes[K];
export function loadProto<T = unknown>(rel: string): T;
export function loadProto(rel: string): unknown {
  let pkg = cache.get(rel);
  if (!pkg) {
    const def = protoLoader.loadSync(rel, { ...PROTO_LOADER_OPTIONS, includeDirs: [protoRoot()] });
    pkg = grpc.loadPackageDefinition(def);
    cache.set(rel, pkg);
  }
  return pkg;
}

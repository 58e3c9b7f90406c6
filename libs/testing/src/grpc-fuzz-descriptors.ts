import * as protoLoader from '@grpc/proto-loader';
import { protoRoot } from '@llmgw/contracts';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

// ---------------------------------------------------------------- descriptors

export type ScalarKind =
  | 'string'
  | 'bytes'
  | 'bool'
  | 'enum'
  | 'float'
  | 'double'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'uint64'
  | 'sint32'
  | 'sint64'
  | 'fixed32'
  | 'fixed64'
  | 'sfixed32'
  | 'sfixed64';

export interface FieldDesc {
  name: string;
  number: number;
  kind: ScalarKind | 'message';
  repeated: boolean;
  /** Full name of the message type (kind "message") or enum (kind "enum"). */
  typeName?: string;
  /** The oneof group index, when the field is a member of one. */
  oneof?: number;
}

export interface MessageDesc {
  name: string;
  fields: FieldDesc[];
}

/** Every message and enum of a set of protos, by full name. */
export interface DescriptorSet {
  messages: Map<string, MessageDesc>;
  /** Declared numbers of each enum. */
  enums: Map<string, number[]>;
}

export interface FuzzMethod {
  /** "llmgw.accounting.v1.TenancyAdmin" */
  service: string;
  /** "CreateOrg" */
  method: string;
  /** "/llmgw.accounting.v1.TenancyAdmin/CreateOrg" */
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  /** Full name of the request message. */
  request: string;
  types: DescriptorSet;
}

const KINDS: Record<string, ScalarKind | 'message'> = {
  TYPE_STRING: 'string',
  TYPE_BYTES: 'bytes',
  TYPE_BOOL: 'bool',
  TYPE_ENUM: 'enum',
  TYPE_FLOAT: 'float',
  TYPE_DOUBLE: 'double',
  TYPE_INT32: 'int32',
  TYPE_INT64: 'int64',
  TYPE_UINT32: 'uint32',
  TYPE_UINT64: 'uint64',
  TYPE_SINT32: 'sint32',
  TYPE_SINT64: 'sint64',
  TYPE_FIXED32: 'fixed32',
  TYPE_FIXED64: 'fixed64',
  TYPE_SFIXED32: 'sfixed32',
  TYPE_SFIXED64: 'sfixed64',
  TYPE_MESSAGE: 'message',
};

interface RawField {
  name: string;
  number: number;
  label: string;
  type: string;
  typeName: string;
}

/** Resolves a type reference the way protobuf scoping does: innermost scope first. */
function resolveName(ref: string, scope: string, known: (n: string) => boolean): string {
  if (ref.startsWith('.')) return ref.slice(1);
  const parts = scope.split('.');
  for (let i = parts.length; i >= 0; i--) {
    const candidate = [...parts.slice(0, i), ref].join('.');
    if (known(candidate)) return candidate;
  }
  return ref;
}

/** Reads the fields of one encoded message: (number, wire type, varint value or bytes). */
function* readFields(b: Buffer): Generator<[number, number, bigint | Buffer]> {
  let i = 0;
  const readVarint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = b[i++];
      if (byte === undefined) throw new Error('grpc-fuzz: truncated descriptor');
      v |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
  };
  while (i < b.length) {
    const tag = Number(readVarint());
    const wire = tag & 7;
    if (wire === 0) yield [tag >>> 3, wire, readVarint()];
    else if (wire === 2) {
      const len = Number(readVarint());
      yield [tag >>> 3, wire, b.subarray(i, (i += len))];
    } else if (wire === 1 || wire === 5) {
      const len = wire === 1 ? 8 : 4;
      yield [tag >>> 3, wire, b.subarray(i, (i += len))];
    } else throw new Error(`grpc-fuzz: wire type ${wire} in a descriptor`);
  }
}

/**
 * Field numbers that are members of a real oneof, per message full name, read
 * from the binary FileDescriptorProtos (proto-loader's JSON descriptors give
 * every field a oneofIndex of 0, so they cannot tell).
 */
function oneofMembers(files: Buffer[]): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  const message = (b: Buffer, scope: string) => {
    let name = '';
    const fields: Buffer[] = [];
    const nested: Buffer[] = [];
    for (const [n, , v] of readFields(b)) {
      if (n === 1) name = (v as Buffer).toString('utf8');
      else if (n === 2) fields.push(v as Buffer);
      else if (n === 3) nested.push(v as Buffer);
    }
    const full = scope ? `${scope}.${name}` : name;
    const members = new Map<number, number>();
    for (const fb of fields) {
      let num = 0;
      let oneof: number | undefined;
      let synthetic = false;
      for (const [n, , v] of readFields(fb)) {
        if (n === 3) num = Number(v);
        else if (n === 9) oneof = Number(v);
        else if (n === 17) synthetic = v === 1n;
      }
      if (oneof !== undefined && !synthetic) members.set(num, oneof);
    }
    out.set(full, members);
    for (const nb of nested) message(nb, full);
  };
  for (const f of files) {
    let pkg = '';
    const msgs: Buffer[] = [];
    for (const [n, , v] of readFields(f)) {
      if (n === 2) pkg = (v as Buffer).toString('utf8');
      else if (n === 4) msgs.push(v as Buffer);
    }
    for (const m of msgs) message(m, pkg);
  }
  return out;
}

/** The descriptors in a proto-loader package definition. */
export function descriptorSet(def: protoLoader.PackageDefinition): DescriptorSet {
  const messages = new Map<string, MessageDesc>();
  const enums = new Map<string, number[]>();
  const known = (n: string) => n in def;
  const files = new Map<string, Buffer>();
  for (const entry of Object.values(def))
    for (const f of (entry as { fileDescriptorProtos?: Buffer[] }).fileDescriptorProtos ?? []) files.set(f.toString('base64'), f);
  const oneofs = oneofMembers([...files.values()]);
  for (const [name, entry] of Object.entries(def)) {
    const e = entry as { format?: string; type?: { field?: RawField[]; value?: Array<{ number: number }> } };
    if (e.format?.endsWith('EnumDescriptorProto'))
      enums.set(
        name,
        (e.type?.value ?? []).map((v) => v.number),
      );
    if (!e.format?.endsWith(' DescriptorProto')) continue;
    const fields = (e.type?.field ?? []).map((f): FieldDesc => {
      const kind = KINDS[f.type];
      if (!kind) throw new Error(`grpc-fuzz: ${name}.${f.name} has a type this fuzzer does not know (${f.type})`);
      const oneof = oneofs.get(name)?.get(f.number);
      return {
        name: f.name,
        number: f.number,
        kind,
        repeated: f.label === 'LABEL_REPEATED',
        ...(kind === 'message' || kind === 'enum' ? { typeName: resolveName(f.typeName, name, known) } : {}),
        ...(oneof !== undefined ? { oneof } : {}),
      };
    });
    messages.set(name, { name, fields });
  }
  return { messages, enums };
}

function protoFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...protoFiles(p));
    else if (name.endsWith('.proto')) out.push(p);
  }
  return out;
}

/**
 * Every method of every service declared under `root` (default: the repo's
 * proto/ folder), sorted by path; `serviceFilter` keeps only some services.
 */
export function loadFuzzMethods(root: string = protoRoot(), serviceFilter?: (service: string) => boolean): FuzzMethod[] {
  const files = protoFiles(join(root, 'llmgw')).map((f) => relative(root, f));
  const def = protoLoader.loadSync(files, { keepCase: false, longs: String, enums: String, defaults: false, oneofs: true, includeDirs: [root] });
  const types = descriptorSet(def);
  const out: FuzzMethod[] = [];
  for (const [service, entry] of Object.entries(def)) {
    if ((entry as { format?: string }).format) continue;
    if (serviceFilter && !serviceFilter(service)) continue;
    for (const [method, m] of Object.entries(entry as protoLoader.ServiceDefinition)) {
      const req = (m.requestType as unknown as { type: { name: string } }).type;
      // The request type's full name: the definition whose descriptor is this one, the service's scope first.
      const same = (k: string) => JSON.stringify((def[k] as { type?: unknown }).type) === JSON.stringify(req);
      const scoped = resolveName(req.name, service, (k) => k in def && same(k));
      const request = scoped in def ? scoped : (Object.keys(def).find((k) => (k === req.name || k.endsWith(`.${req.name}`)) && same(k)) ?? req.name);
      out.push({ service, method, path: m.path, requestStream: m.requestStream, responseStream: m.responseStream, request, types });
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

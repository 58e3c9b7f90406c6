import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoRoot } from '@llmgw/contracts';
import { clientChannelOptions, clientCredentials, type ClientTlsOptions } from '@llmgw/grpc';
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * A fuzzer for every gRPC method llmgw serves (docs/security.md: bad input
 * gets a status naming the field, never a crash, a hang or a leak). The
 * methods and their request types come from the .proto files themselves, so
 * a method added later is fuzzed without touching this file. Requests are
 * raw bytes built here (a small protobuf wire encoder), so a case can say
 * what generated types cannot: a wrong wire type, a truncated message, an
 * int64 past 2^53, an enum number nobody declared.
 */

// ---------------------------------------------------------------- descriptors

export type ScalarKind =
  | 'string' | 'bytes' | 'bool' | 'enum' | 'float' | 'double'
  | 'int32' | 'int64' | 'uint32' | 'uint64' | 'sint32' | 'sint64'
  | 'fixed32' | 'fixed64' | 'sfixed32' | 'sfixed64';

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
  TYPE_STRING: 'string', TYPE_BYTES: 'bytes', TYPE_BOOL: 'bool', TYPE_ENUM: 'enum', TYPE_FLOAT: 'float', TYPE_DOUBLE: 'double',
  TYPE_INT32: 'int32', TYPE_INT64: 'int64', TYPE_UINT32: 'uint32', TYPE_UINT64: 'uint64', TYPE_SINT32: 'sint32', TYPE_SINT64: 'sint64',
  TYPE_FIXED32: 'fixed32', TYPE_FIXED64: 'fixed64', TYPE_SFIXED32: 'sfixed32', TYPE_SFIXED64: 'sfixed64', TYPE_MESSAGE: 'message',
};

interface RawField { name: string; number: number; label: string; type: string; typeName: string }

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
  for (const entry of Object.values(def)) for (const f of (entry as { fileDescriptorProtos?: Buffer[] }).fileDescriptorProtos ?? []) files.set(f.toString('base64'), f);
  const oneofs = oneofMembers([...files.values()]);
  for (const [name, entry] of Object.entries(def)) {
    const e = entry as { format?: string; type?: { field?: RawField[]; value?: Array<{ number: number }> } };
    if (e.format?.endsWith('EnumDescriptorProto')) enums.set(name, (e.type?.value ?? []).map((v) => v.number));
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

// ---------------------------------------------------------------- wire encoding

/** One value on the wire: what a field holds before it is encoded. */
export type WireValue =
  | { t: 'varint'; v: bigint }
  | { t: 'fixed64'; v: Buffer }
  | { t: 'fixed32'; v: Buffer }
  | { t: 'len'; v: Buffer }
  | { t: 'msg'; v: MessageValue };

/** A message as fields in wire order: (field number, value), repeated fields as several entries. */
export type MessageValue = Array<[number, WireValue]>;

const WIRE: Record<WireValue['t'], number> = { varint: 0, fixed64: 1, len: 2, msg: 2, fixed32: 5 };

/** A base-128 varint; negative numbers as their 64-bit two's complement (10 bytes), as protobuf does. */
export function varint(n: bigint): Buffer {
  let v = n < 0n ? (1n << 64n) + n : n;
  const bytes: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    bytes.push(b);
  } while (v > 0n);
  return Buffer.from(bytes);
}

/** Encodes a message value (no length prefix). */
export function encodeMessage(m: MessageValue): Buffer {
  const parts: Buffer[] = [];
  for (const [num, val] of m) {
    parts.push(varint(BigInt(num * 8 + WIRE[val.t])));
    if (val.t === 'varint') parts.push(varint(val.v));
    else if (val.t === 'fixed64' || val.t === 'fixed32') parts.push(val.v);
    else {
      const body = val.t === 'msg' ? encodeMessage(val.v) : val.v;
      parts.push(varint(BigInt(body.length)), body);
    }
  }
  return Buffer.concat(parts);
}

const zigzag = (n: bigint, bits: bigint) => (n << 1n) ^ (n >> (bits - 1n));
function f64(x: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return b;
}
function f32(x: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeFloatLE(x);
  return b;
}
function fixedInt(n: bigint, bytes: 4 | 8): Buffer {
  const b = Buffer.alloc(bytes);
  if (bytes === 8) b.writeBigUInt64LE(BigInt.asUintN(64, n));
  else b.writeUInt32LE(Number(BigInt.asUintN(32, n)));
  return b;
}

/** The wire value of a scalar of `kind` (numbers as bigint for the integer kinds). */
export function scalar(kind: ScalarKind, v: string | Buffer | bigint | number | boolean): WireValue {
  switch (kind) {
    case 'string':
      return { t: 'len', v: Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'utf8') };
    case 'bytes':
      return { t: 'len', v: Buffer.isBuffer(v) ? v : Buffer.from(String(v)) };
    case 'bool':
      return { t: 'varint', v: typeof v === 'bigint' ? v : v ? 1n : 0n };
    case 'float':
      return { t: 'fixed32', v: f32(Number(v)) };
    case 'double':
      return { t: 'fixed64', v: f64(Number(v)) };
    case 'sint32':
      return { t: 'varint', v: BigInt.asUintN(32, zigzag(BigInt(v as bigint), 32n)) };
    case 'sint64':
      return { t: 'varint', v: BigInt.asUintN(64, zigzag(BigInt(v as bigint), 64n)) };
    case 'fixed32':
    case 'sfixed32':
      return { t: 'fixed32', v: fixedInt(BigInt(v as bigint), 4) };
    case 'fixed64':
    case 'sfixed64':
      return { t: 'fixed64', v: fixedInt(BigInt(v as bigint), 8) };
    default:
      // int32/int64/uint32/uint64/enum: a varint (negatives sign-extended to 64 bits).
      return { t: 'varint', v: BigInt(v as bigint) };
  }
}

// ---------------------------------------------------------------- cases

export type FuzzCategory =
  | 'base' | 'empty' | 'wire-type' | 'oversized' | 'repeated' | 'control-chars' | 'int-extreme'
  | 'float-special' | 'enum' | 'random' | 'truncated' | 'unknown-field' | 'stream-garbage';

export interface FuzzCase {
  /** Stable id within its method: "<category>:<field path>:<variant>". */
  id: string;
  category: FuzzCategory;
  /** The frames sent, in order (one for a unary or server-streaming method); encoded on first use. */
  readonly frames: Buffer[];
  /** Input strings whose echo in a status message counts (the long ones). */
  probes: string[];
}

/** A case whose frames are encoded when first read (a sample encodes only what it sends). */
function lazyCase(id: string, category: FuzzCategory, make: () => Buffer[], probes: string[]): FuzzCase {
  let frames: Buffer[] | undefined;
  return {
    id,
    category,
    probes,
    get frames() {
      return (frames ??= make());
    },
  };
}

const longStrings = new Map<number, string>();
const longString = (n: number) => {
  let s = longStrings.get(n);
  if (!s) longStrings.set(n, (s = OVERSIZE_CHAR.repeat(n)));
  return s;
};

/** A seeded PRNG (mulberry32): the same seed, the same cases. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export interface CaseOptions {
  /** PRNG seed; with the method path it fixes every random case. Default 29. */
  seed?: number;
  /** Length of the oversized strings and bytes; default 100 KB. */
  oversize?: number;
  /** Elements in an oversized repeated field; default 10,000. */
  repeatCount?: number;
  /** How deep nested messages are filled and fuzzed; default 3. */
  maxDepth?: number;
  /** Random-bytes cases per method; default 4. */
  randomCases?: number;
  /**
   * Values for fields of the base message, by field path ("register.node.nodeId"),
   * so cases get past a check the fuzzer cannot guess (a node id matching the certificate).
   */
  base?: Record<string, string | number | boolean>;
}

/** The character a long probe string is made of: nothing else in a status message is a run of it. */
export const OVERSIZE_CHAR = 'Q';

/** Strings that break names, terminals and databases. */
export const CONTROL_STRINGS: ReadonlyArray<[string, string]> = [
  ['nul', 'fuzz\u0000nul'],
  ['soh', '\u0001'],
  ['esc', '\u001b[2J'],
  ['del', 'x\u007f'],
  ['newline', 'a\nb\r'],
  ['c1', 'x\u0085y'],
];

const TWO63 = 1n << 63n;
const TWO64 = 1n << 64n;
const INT_EXTREMES: Partial<Record<ScalarKind, ReadonlyArray<[string, bigint]>>> = {
  int64: [['max', TWO63 - 1n], ['min', -TWO63], ['2^53+1', (1n << 53n) + 1n], ['-2^53-1', -(1n << 53n) - 1n], ['2^31', 1n << 31n], ['-1', -1n]],
  sint64: [['max', TWO63 - 1n], ['min', -TWO63], ['2^53+1', (1n << 53n) + 1n]],
  sfixed64: [['max', TWO63 - 1n], ['min', -TWO63], ['2^53+1', (1n << 53n) + 1n]],
  uint64: [['max', TWO64 - 1n], ['2^63-1', TWO63 - 1n], ['2^53+1', (1n << 53n) + 1n], ['2^31', 1n << 31n]],
  fixed64: [['max', TWO64 - 1n], ['2^53+1', (1n << 53n) + 1n]],
  int32: [['max', (1n << 31n) - 1n], ['min', -(1n << 31n)], ['-1', -1n]],
  sint32: [['max', (1n << 31n) - 1n], ['min', -(1n << 31n)]],
  sfixed32: [['max', (1n << 31n) - 1n], ['min', -(1n << 31n)]],
  uint32: [['max', (1n << 32n) - 1n], ['2^31', 1n << 31n]],
  fixed32: [['max', (1n << 32n) - 1n]],
};

/** A field's plausible value in the base message (a short string, 1, the first declared enum value but 0, true). */
function plainValue(f: FieldDesc, types: DescriptorSet, path: string, opts: CaseOptions): WireValue {
  const given = opts.base?.[path];
  if (f.kind === 'enum') {
    const nums = types.enums.get(f.typeName!) ?? [0];
    return scalar('enum', BigInt(typeof given === 'number' ? given : (nums.find((n) => n !== 0) ?? nums[0] ?? 0)));
  }
  if (f.kind === 'message') throw new Error('plainValue: message');
  if (given !== undefined) return scalar(f.kind, f.kind === 'string' || f.kind === 'bytes' ? String(given) : typeof given === 'boolean' ? given : BigInt(given));
  if (f.kind === 'string') return scalar('string', `fuzz-${f.name}`);
  if (f.kind === 'bytes') return scalar('bytes', Buffer.from('fuzz'));
  if (f.kind === 'bool') return scalar('bool', true);
  if (f.kind === 'float' || f.kind === 'double') return scalar(f.kind, 1.5);
  return scalar(f.kind, 1n);
}

/**
 * The base message of `type`: every field set once (one member per oneof:
 * the first, or the one `choose` names), nested messages to `maxDepth`.
 */
function baseMessage(type: string, types: DescriptorSet, opts: CaseOptions, depth: number, prefix: string, chain: string[], choose?: Map<number, number>): MessageValue {
  const desc = types.messages.get(type);
  if (!desc) return [];
  const out: MessageValue = [];
  const taken = new Set<number>();
  for (const f of desc.fields) {
    if (f.oneof !== undefined) {
      const want = choose?.get(f.oneof);
      if (want !== undefined ? want !== f.number : taken.has(f.oneof)) continue;
      taken.add(f.oneof);
    }
    const path = prefix ? `${prefix}.${f.name}` : f.name;
    if (f.kind === 'message') {
      if (depth >= (opts.maxDepth ?? 3) || chain.includes(f.typeName!)) continue;
      out.push([f.number, { t: 'msg', v: baseMessage(f.typeName!, types, opts, depth + 1, path, [...chain, f.typeName!]) }]);
    } else out.push([f.number, plainValue(f, types, path, opts)]);
  }
  return out;
}

/** One way of breaking one field: its new values (several = a repeated field), or undefined to drop it. */
interface Mutation {
  category: FuzzCategory;
  variant: string;
  values: WireValue[];
  probes?: string[];
}

function fieldMutations(f: FieldDesc, types: DescriptorSet, opts: CaseOptions, base: WireValue | undefined): Mutation[] {
  const big = opts.oversize ?? 100_000;
  const n = opts.repeatCount ?? 10_000;
  const out: Mutation[] = [];
  const long = longString(big);
  if (f.kind === 'string') {
    out.push({ category: 'oversized', variant: `${big}`, values: [scalar('string', long)], probes: [long] });
    for (const [name, s] of CONTROL_STRINGS) out.push({ category: 'control-chars', variant: name, values: [scalar('string', s)] });
    out.push({ category: 'control-chars', variant: 'bad-utf8', values: [{ t: 'len', v: Buffer.from([0x66, 0xff, 0xfe, 0xc3]) }] });
    out.push({ category: 'wire-type', variant: 'varint', values: [{ t: 'varint', v: 1n }] });
  } else if (f.kind === 'bytes') {
    out.push({ category: 'oversized', variant: `${big}`, values: [{ t: 'len', v: Buffer.alloc(big, 0x51) }], probes: [long] });
    out.push({ category: 'wire-type', variant: 'varint', values: [{ t: 'varint', v: 1n }] });
  } else if (f.kind === 'enum') {
    out.push({ category: 'enum', variant: '9999', values: [scalar('enum', 9999n)] }, { category: 'enum', variant: '-1', values: [scalar('enum', -1n)] });
    out.push({ category: 'wire-type', variant: 'len', values: [{ t: 'len', v: Buffer.from('x') }] });
  } else if (f.kind === 'bool') {
    out.push({ category: 'int-extreme', variant: 'u64max', values: [{ t: 'varint', v: TWO64 - 1n }] });
    out.push({ category: 'wire-type', variant: 'len', values: [{ t: 'len', v: Buffer.from('x') }] });
  } else if (f.kind === 'float' || f.kind === 'double') {
    for (const [name, x] of [['nan', NaN], ['inf', Infinity], ['-inf', -Infinity], ['huge', f.kind === 'float' ? 3.4e38 : 1.7e308], ['neg', -1]] as const) out.push({ category: 'float-special', variant: name, values: [scalar(f.kind, x)] });
    out.push({ category: 'wire-type', variant: 'len', values: [{ t: 'len', v: Buffer.from('x') }] });
  } else if (f.kind === 'message') {
    out.push({ category: 'empty', variant: 'present', values: [{ t: 'msg', v: [] }] });
    out.push({ category: 'wire-type', variant: 'varint', values: [{ t: 'varint', v: 7n }] });
    out.push({ category: 'truncated', variant: 'garbage-body', values: [{ t: 'len', v: Buffer.from([0x0a, 0x7f, 0x01]) }] });
  } else {
    for (const [name, v] of INT_EXTREMES[f.kind] ?? []) out.push({ category: 'int-extreme', variant: name, values: [scalar(f.kind, v)] });
    out.push({ category: 'wire-type', variant: 'len', values: [{ t: 'len', v: Buffer.from('x') }] });
  }
  if (f.repeated) {
    const one = base ?? (f.kind === 'message' ? { t: 'msg' as const, v: [] } : plainValue(f, types, '', opts));
    out.push({ category: 'repeated', variant: `${n}`, values: Array.from({ length: n }, () => one) });
  }
  return out;
}

/** Rebuilds the message with the field at `path` replaced by `values` (the oneof members on the path chosen). */
function withField(type: string, types: DescriptorSet, opts: CaseOptions, path: FieldDesc[], values: WireValue[], depth = 0, prefix = '', chain: string[] = []): MessageValue {
  const [f, ...rest] = path;
  const choose = f.oneof !== undefined ? new Map([[f.oneof, f.number]]) : undefined;
  const base = baseMessage(type, types, opts, depth, prefix, chain, choose);
  const fieldPath = prefix ? `${prefix}.${f.name}` : f.name;
  const replacement: WireValue[] = rest.length === 0 ? values : [{ t: 'msg', v: withField(f.typeName!, types, opts, rest, values, depth + 1, fieldPath, [...chain, f.typeName!]) }];
  const i = base.findIndex(([num]) => num === f.number);
  const entries = replacement.map((v): [number, WireValue] => [f.number, v]);
  if (i < 0) return [...base, ...entries];
  return [...base.slice(0, i), ...entries, ...base.slice(i + 1)];
}

/** Every field path to fuzz: each field of the request, and of its nested messages to `maxDepth`. */
function fieldPaths(type: string, types: DescriptorSet, maxDepth: number, chain: string[] = []): FieldDesc[][] {
  const desc = types.messages.get(type);
  if (!desc) return [];
  const out: FieldDesc[][] = [];
  for (const f of desc.fields) {
    out.push([f]);
    if (f.kind === 'message' && chain.length + 1 < maxDepth && !chain.includes(f.typeName!) && f.typeName !== type) {
      for (const p of fieldPaths(f.typeName!, types, maxDepth, [...chain, type])) out.push([f, ...p]);
    }
  }
  return out;
}

/**
 * Every case for one method: whole-message cases (empty, the base message,
 * random bytes, truncations, an unknown field), then per field path every
 * mutation of its kind (oversized, control characters, int64 extremes,
 * unknown enum numbers, wrong wire types, 10,000-element repeated fields),
 * and for a client-streaming method garbage frames after a good one.
 */
export function fuzzCases(m: FuzzMethod, opts: CaseOptions = {}): FuzzCase[] {
  const rand = prng((opts.seed ?? 29) ^ hash(m.path));
  const maxDepth = opts.maxDepth ?? 3;
  const base = encodeMessage(baseMessage(m.request, m.types, opts, 0, '', [m.request]));
  const cases: FuzzCase[] = [];
  const add = (id: string, category: FuzzCategory, frame: Buffer | (() => Buffer), probes: string[] = []) =>
    cases.push(lazyCase(id, category, () => [typeof frame === 'function' ? frame() : frame], probes));
  add('empty', 'empty', Buffer.alloc(0));
  add('base', 'base', base);
  const randoms = opts.randomCases ?? 4;
  for (let i = 0; i < randoms; i++) {
    const len = i === randoms - 1 ? 4096 : 1 + Math.floor(rand() * 64);
    add(`random:${i}:${len}`, 'random', Buffer.from(Array.from({ length: len }, () => Math.floor(rand() * 256))));
  }
  if (base.length > 1) {
    add('truncated:-1', 'truncated', base.subarray(0, base.length - 1));
    add('truncated:half', 'truncated', base.subarray(0, Math.ceil(base.length / 2)));
  }
  // A length prefix promising more than follows.
  add('truncated:long-length', 'truncated', Buffer.concat([varint(BigInt(1 * 8 + 2)), varint(1000n), Buffer.from('abc')]));
  add('unknown-field', 'unknown-field', Buffer.concat([base, encodeMessage([[9999, { t: 'len', v: Buffer.from('unknown') }], [536870911, { t: 'varint', v: 1n }]])]));
  // A tag with field number 0 and wire type 7: invalid in every message.
  add('wire-type:invalid-tag', 'wire-type', Buffer.from([0x07, 0x01]));

  for (const path of fieldPaths(m.request, m.types, maxDepth)) {
    const leaf = path[path.length - 1];
    const name = path.map((f) => f.name).join('.');
    const baseValue = leaf.kind === 'message' ? undefined : plainValue(leaf, m.types, name, opts);
    for (const mut of fieldMutations(leaf, m.types, opts, baseValue)) {
      add(`${mut.category}:${name}:${mut.variant}`, mut.category, () => encodeMessage(withField(m.request, m.types, opts, path, mut.values)), mut.probes);
    }
  }
  if (m.requestStream) {
    for (const c of cases.filter((c) => c.category === 'random' || c.category === 'truncated')) {
      cases.push(lazyCase(`stream-garbage:after-base:${c.id}`, 'stream-garbage', () => [base, c.frames[0]], []));
    }
    cases.push(lazyCase('stream-garbage:many', 'stream-garbage', () => [base, ...Array.from({ length: 20 }, () => Buffer.from([0xff, 0xff, 0xff]))], []));
  }
  return cases;
}

/**
 * A deterministic sample of `cases`: every category kept at least once
 * (the first case of it), the rest drawn with the seed up to `n` in all.
 */
export function sampleCases(cases: FuzzCase[], n: number, seed = 29): FuzzCase[] {
  if (cases.length <= n) return cases;
  const chosen = new Set<FuzzCase>();
  const seen = new Set<FuzzCategory>();
  for (const c of cases) {
    if (!seen.has(c.category)) {
      seen.add(c.category);
      chosen.add(c);
    }
  }
  const rand = prng(seed ^ hash(cases[0]?.id ?? ''));
  const rest = cases.filter((c) => !chosen.has(c));
  while (chosen.size < n && rest.length) chosen.add(rest.splice(Math.floor(rand() * rest.length), 1)[0]);
  return cases.filter((c) => chosen.has(c));
}

// ---------------------------------------------------------------- judging answers

/** A status message that shows the server's insides. */
export function leakOf(message: string): 'stack' | 'sql' | 'path' | undefined {
  if (/\n\s+at \S.*[(:]\d+|\bat [\w.<>$]+ \([^)]*:\d+:\d+\)/.test(message)) return 'stack';
  if (/\b(select|insert into|update|delete from)\b[\s\S]*\b(from|set|values|where)\b|\bsqlstate\b|violates [\w ]*constraint|\brelation "|syntax error at or near|invalid byte sequence for encoding|out of range for type|\bpg_\w+|duplicate key value/i.test(message)) return 'sql';
  if (/(^|[\s"'(=])\/(home|work|usr|tmp|opt|var|root|srv|etc|proc)\/|node_modules|[A-Za-z]:\\|\.(ts|js|cjs|mjs):\d+/.test(message)) return 'path';
  return undefined;
}

/** True when `message` repeats more than 256 characters of one of `probes` (the echo that wedges a connection). */
export function echoes(message: string, probes: readonly string[]): boolean {
  if (message.length <= 256) return false;
  return probes.some((p) => p.length > 256 && (message.includes(p.slice(0, 257)) || message.includes(p.slice(p.length - 257))));
}

/** grpc-js's own answer to bytes it could not decode (not the handler's). */
export function isDeserializeError(message: string): boolean {
  return /error deserializing request/i.test(message);
}

// ---------------------------------------------------------------- calling

export interface RawAnswer {
  /** Status name ("OK", "INVALID_ARGUMENT", …); "HANG" when nothing came within the limit. */
  code: string;
  message: string;
  latencyMs: number;
  /** A response message arrived (streams: the first one settles the call). */
  data: boolean;
}

export interface RawCallOptions {
  /** No answer within this long is a hang; default 5 s. */
  hangMs?: number;
  channelOptions?: grpc.ChannelOptions;
}

const passthrough = (b: Buffer) => b;

/**
 * One call with raw request frames on its own connection (a local subchannel
 * pool, so a wedged connection cannot stall the next case). A unary or
 * server-streaming call settles at its first response or status; a client
 * stream writes every frame, half-closes and settles at its status (or, with
 * one frame, at its first response).
 */
export function callRaw(address: string, tls: ClientTlsOptions | undefined, m: Pick<FuzzMethod, 'path' | 'requestStream' | 'responseStream'>, frames: Buffer[], opts: RawCallOptions = {}): Promise<RawAnswer> {
  const hangMs = opts.hangMs ?? 5_000;
  const client = new grpc.Client(address, clientCredentials({ tls }), {
    ...clientChannelOptions({ tls, address }),
    'grpc.use_local_subchannel_pool': 1,
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    ...opts.channelOptions,
  });
  const t0 = performance.now();
  // The deadline is the hang limit plus a margin: a DEADLINE_EXCEEDED we set ourselves is still a hang.
  const deadline = new Date(Date.now() + hangMs + 1_000);
  return new Promise<RawAnswer>((resolve) => {
    let settled = false;
    let call: { cancel(): void } | undefined;
    const settle = (code: string, message: string, data = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const latencyMs = performance.now() - t0;
      call?.cancel();
      client.close();
      resolve({ code, message, latencyMs, data });
    };
    const timer = setTimeout(() => settle('HANG', `no answer within ${hangMs} ms`), hangMs);
    const onErr = (e: grpc.ServiceError) => settle(grpc.status[e.code] ?? String(e.code), e.details ?? e.message);
    const md = new grpc.Metadata();
    if (!m.requestStream && !m.responseStream) {
      call = client.makeUnaryRequest(m.path, passthrough, passthrough, frames[0] ?? Buffer.alloc(0), md, { deadline }, (err) => (err ? onErr(err) : settle('OK', '', true)));
      return;
    }
    if (!m.requestStream) {
      const s = client.makeServerStreamRequest(m.path, passthrough, passthrough, frames[0] ?? Buffer.alloc(0), md, { deadline });
      call = s;
      s.on('data', () => settle('OK', '', true));
      s.on('error', onErr);
      s.on('status', (st: grpc.StatusObject) => settle(grpc.status[st.code], st.details));
      return;
    }
    const settleOnData = frames.length <= 1;
    const s = m.responseStream
      ? client.makeBidiStreamRequest(m.path, passthrough, passthrough, md, { deadline })
      : client.makeClientStreamRequest(m.path, passthrough, passthrough, md, { deadline }, (err) => (err ? onErr(err) : settle('OK', '', true)));
    call = s;
    if (m.responseStream) (s as grpc.ClientDuplexStream<Buffer, Buffer>).on('data', () => settleOnData && settle('OK', '', true));
    s.on('error', onErr);
    s.on('status', (st: grpc.StatusObject) => settle(grpc.status[st.code], st.details));
    for (const f of frames) s.write(f);
    s.end();
  });
}

// ---------------------------------------------------------------- a run

/** One gRPC port to fuzz. */
export interface FuzzTarget {
  /** Row name in the findings ("accounting", "inventory (agent port)"). */
  name: string;
  /** "host:port" */
  address: string;
  /** The services served there (full names); their methods come from the protos. */
  services: string[];
  /** Client TLS for a role (for "node": a node certificate whose CN the base message names). */
  tls(role: string): ClientTlsOptions;
  /**
   * The role tried first for each method (default operator); a refusal that
   * names the role the method needs switches to that one.
   */
  defaultRole?: string;
  /** Base field values per method name (see CaseOptions.base). */
  base?: Record<string, Record<string, string | number | boolean>>;
  /** Is the serving process still running? */
  alive?(): boolean;
  /** The admin /metrics URL, for nodejs_eventloop_lag_max_seconds. */
  metricsUrl?: string;
  /** A valid call that must succeed after the fuzzing; resolves to its status name. */
  valid?(): Promise<string>;
}

export interface CaseResult {
  id: string;
  category: FuzzCategory;
  code: string;
  /** The status message, cut to 300 characters. */
  message: string;
  messageLength: number;
  latencyMs: number;
  hang: boolean;
  echo: boolean;
  leak?: 'stack' | 'sql' | 'path';
  /** INTERNAL or UNKNOWN from the handler (not grpc-js failing to decode). */
  handlerError: boolean;
  deserializeError: boolean;
}

export interface MethodFindings {
  target: string;
  path: string;
  method: string;
  role: string;
  cases: number;
  codes: Record<string, number>;
  handlerErrors: number;
  deserializeErrors: number;
  hangs: number;
  echoes: number;
  leaks: number;
  maxLatencyMs: number;
  /** Largest event-loop delay the server reported while this method was fuzzed (ms), when it exports one. */
  stallMs?: number;
  /** The server process was running after this method's cases. */
  alive: boolean;
  results: CaseResult[];
}

export interface ScenarioFinding {
  target: string;
  name: string;
  ok: boolean;
  detail: string;
  stallMs?: number;
  /** Round trip of a health call sent right after (ms). */
  healthMs?: number;
  alive: boolean;
}

export interface TargetFindings {
  target: string;
  methods: MethodFindings[];
  scenarios: ScenarioFinding[];
  /** Status of the valid call after the fuzzing ("OK" when it succeeded). */
  validAfter?: string;
  alive: boolean;
}

export interface FuzzOptions extends Omit<CaseOptions, 'base'> {
  /** At most this many cases per method (a seeded sample keeping every category); all when absent. */
  samplePerMethod?: number;
  hangMs?: number;
  /** Calls in flight at once per method; default 4. */
  concurrency?: number;
  /**
   * Methods fuzzed at once; default 1. Above 1 a method's stall is the largest
   * event-loop delay since the previous scrape by any method.
   */
  methodConcurrency?: number;
  /** Only methods whose path matches. */
  methodFilter?: (path: string) => boolean;
  /** Progress lines (the runner prints them). */
  onProgress?: (line: string) => void;
  /** Where the protos are; default the repo's proto/. */
  protoRoot?: string;
}

const cut = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…(${s.length})` : s);

/** Per metrics URL: the largest delay any scrape through eventLoopMaxMs read since takeEventLoopMaxMs last cleared it. */
const seenLagMs = new Map<string, number>();

/** The largest event-loop delay since the last scrape, in ms (prom-client resets it per scrape). */
export async function eventLoopMaxMs(metricsUrl: string): Promise<number | undefined> {
  try {
    const r = await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) });
    const text = await r.text();
    const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.eE+-]+)/m.exec(text);
    if (!m) return undefined;
    const ms = Number(m[1]) * 1000;
    seenLagMs.set(metricsUrl, Math.max(ms, seenLagMs.get(metricsUrl) ?? 0));
    return ms;
  } catch {
    return undefined;
  }
}

/**
 * The largest event-loop delay read at `metricsUrl` by every eventLoopMaxMs
 * scrape since the previous take (each scrape resets the server's maximum, so
 * this is the maximum over the whole span however many scrapes cut it), and
 * clears it. Scrape once before taking, so the span ends now.
 */
export function takeEventLoopMaxMs(metricsUrl: string): number | undefined {
  const v = seenLagMs.get(metricsUrl);
  seenLagMs.delete(metricsUrl);
  return v;
}

/**
 * A bystander Node process that does nothing but measure its own event-loop
 * delay (as prom-client does for nodejs_eventloop_lag_max_seconds: a 10 ms
 * timer histogram). Whatever it sees comes from the machine (CPU contention,
 * other processes), not from any input, so it is the same-window reference
 * for what a fuzzed server reports.
 */
export interface LagProbe {
  /** The largest delay since the previous take (or the start), in ms; resets it. */
  takeMaxMs(): Promise<number>;
  stop(): void;
}

const LAG_PROBE_SCRIPT = [
  "const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 });",
  'h.enable();',
  "process.stdin.setEncoding('utf8');",
  "process.stdin.on('data', () => { process.stdout.write(`${(h.max / 1e6).toFixed(1)}\\n`); h.reset(); });",
  "process.stdin.on('end', () => process.exit(0));",
  "process.stdout.write('ready\\n');",
].join('\n');

export async function startLagProbe(): Promise<LagProbe> {
  const child = spawn(process.execPath, ['-e', LAG_PROBE_SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      const l = lines.shift();
      if (l !== undefined) return resolve(l);
      const t = setTimeout(() => reject(new Error('lag probe: no answer in 10 s')), 10_000);
      waiters.push((line) => {
        clearTimeout(t);
        resolve(line);
      });
    });
  await next();
  return {
    takeMaxMs: async () => {
      child.stdin.write('\n');
      return Number(await next());
    },
    stop: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

/** The role a method needs, read from the refusal an authorized-by-role server sends (docs/security.md). */
async function roleFor(t: FuzzTarget, m: FuzzMethod, hangMs: number): Promise<string> {
  const first = t.defaultRole ?? 'operator';
  // An empty request on a stream may legitimately wait for more; the refusal, when there is one, comes at once.
  const a = await callRaw(t.address, t.tls(first), m, [Buffer.alloc(0)], { hangMs });
  const need = a.code === 'PERMISSION_DENIED' ? /needs role ([\w-]+)/.exec(a.message) : null;
  return need ? need[1] : first;
}

async function pool<T>(items: T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (i < items.length) await f(items[i++]);
  }));
}

/** Fuzzes every method of `t`'s services; then checks the process and a valid call. */
export async function fuzzTarget(t: FuzzTarget, opts: FuzzOptions = {}): Promise<TargetFindings> {
  const hangMs = opts.hangMs ?? 5_000;
  const methods = loadFuzzMethods(opts.protoRoot, (s) => t.services.includes(s)).filter((m) => !opts.methodFilter || opts.methodFilter(m.path));
  const out: MethodFindings[] = [];
  await pool(methods, opts.methodConcurrency ?? 1, async (m) => {
    const role = await roleFor(t, m, hangMs);
    let cases = fuzzCases(m, { ...opts, base: t.base?.[m.method] });
    if (opts.samplePerMethod) cases = sampleCases(cases, opts.samplePerMethod, opts.seed ?? 29);
    if (t.metricsUrl) await eventLoopMaxMs(t.metricsUrl);
    const tls = t.tls(role);
    const results: CaseResult[] = [];
    await pool(cases, opts.concurrency ?? 4, async (c) => {
      const a = await callRaw(t.address, tls, m, c.frames, { hangMs });
      const deserializeError = isDeserializeError(a.message);
      const leak = leakOf(a.message);
      results.push({
        id: c.id, category: c.category, code: a.code, message: cut(a.message), messageLength: a.message.length, latencyMs: Math.round(a.latencyMs),
        hang: a.code === 'HANG', echo: echoes(a.message, c.probes), ...(leak ? { leak } : {}),
        handlerError: (a.code === 'INTERNAL' || a.code === 'UNKNOWN') && !deserializeError, deserializeError,
      });
    });
    const stallMs = t.metricsUrl ? await eventLoopMaxMs(t.metricsUrl) : undefined;
    const codes: Record<string, number> = {};
    for (const r of results) codes[r.code] = (codes[r.code] ?? 0) + 1;
    const f: MethodFindings = {
      target: t.name, path: m.path, method: `${m.service.split('.').pop()}/${m.method}`, role, cases: results.length, codes,
      handlerErrors: results.filter((r) => r.handlerError).length,
      deserializeErrors: results.filter((r) => r.deserializeError).length,
      hangs: results.filter((r) => r.hang).length,
      echoes: results.filter((r) => r.echo).length,
      leaks: results.filter((r) => r.leak).length,
      maxLatencyMs: Math.max(0, ...results.map((r) => r.latencyMs)),
      ...(stallMs !== undefined ? { stallMs: Math.round(stallMs) } : {}),
      alive: t.alive ? t.alive() : true,
      results: results.sort((a, b) => a.id.localeCompare(b.id)),
    };
    out.push(f);
    opts.onProgress?.(`${t.name} ${f.method}: ${f.cases} cases, ${f.handlerErrors} INTERNAL/UNKNOWN, ${f.hangs} hangs, ${f.echoes} echoes, ${f.leaks} leaks${f.alive ? '' : ', PROCESS GONE'}`);
  });
  out.sort((a, b) => a.path.localeCompare(b.path));
  const validAfter = t.valid ? await t.valid().catch((e: Error) => `ERROR ${e.message}`) : undefined;
  return { target: t.name, methods: out, scenarios: [], ...(validAfter !== undefined ? { validAfter } : {}), alive: t.alive ? t.alive() : true };
}

// ---------------------------------------------------------------- reporting

export interface FuzzTotals {
  cases: number;
  handlerErrors: number;
  deserializeErrors: number;
  hangs: number;
  echoes: number;
  leaks: number;
  crashed: string[];
  failedValid: string[];
}

export function fuzzTotals(all: TargetFindings[]): FuzzTotals {
  const ms = all.flatMap((t) => t.methods);
  const sum = (k: 'cases' | 'handlerErrors' | 'deserializeErrors' | 'hangs' | 'echoes' | 'leaks') => ms.reduce((a, m) => a + m[k], 0);
  return {
    cases: sum('cases'), handlerErrors: sum('handlerErrors'), deserializeErrors: sum('deserializeErrors'), hangs: sum('hangs'), echoes: sum('echoes'), leaks: sum('leaks'),
    crashed: all.filter((t) => !t.alive).map((t) => t.target),
    failedValid: all.filter((t) => t.validAfter !== undefined && t.validAfter !== 'OK').map((t) => t.target),
  };
}

/** The findings as a text table: one row per method, a row per scenario, totals. */
export function formatFindings(all: TargetFindings[]): string {
  const head = ['service', 'method', 'role', 'cases', 'INT/UNK', 'deser', 'hangs', 'echoes', 'leaks', 'max ms', 'stall ms', 'alive'];
  const rows: string[][] = [];
  for (const t of all) {
    for (const m of t.methods) rows.push([t.target, m.method, m.role, String(m.cases), String(m.handlerErrors), String(m.deserializeErrors), String(m.hangs), String(m.echoes), String(m.leaks), String(m.maxLatencyMs), m.stallMs === undefined ? '-' : String(m.stallMs), m.alive ? 'yes' : 'NO']);
    for (const s of t.scenarios) rows.push([t.target, `scenario: ${s.name}`, '', '', s.ok ? '' : 'FAIL', '', '', '', '', s.healthMs === undefined ? '-' : String(s.healthMs), s.stallMs === undefined ? '-' : String(s.stallMs), s.alive ? 'yes' : 'NO']);
    rows.push([t.target, `valid call after: ${t.validAfter ?? '-'}`, '', '', '', '', '', '', '', '', '', t.alive ? 'yes' : 'NO']);
  }
  const tot = fuzzTotals(all);
  rows.push(['TOTAL', '', '', String(tot.cases), String(tot.handlerErrors), String(tot.deserializeErrors), String(tot.hangs), String(tot.echoes), String(tot.leaks), '', '', tot.crashed.length ? `crashed: ${tot.crashed.join(',')}` : 'all']);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i >= 3 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

import { type DescriptorSet, type FieldDesc, type FuzzMethod, type ScalarKind } from './grpc-fuzz-descriptors';
import { type MessageValue, type WireValue, encodeMessage, scalar, varint } from './grpc-fuzz-wire';

// ---------------------------------------------------------------- cases

export type FuzzCategory =
  | 'base'
  | 'empty'
  | 'wire-type'
  | 'oversized'
  | 'repeated'
  | 'control-chars'
  | 'int-extreme'
  | 'float-special'
  | 'enum'
  | 'random'
  | 'truncated'
  | 'unknown-field'
  | 'stream-garbage';

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
  int64: [
    ['max', TWO63 - 1n],
    ['min', -TWO63],
    ['2^53+1', (1n << 53n) + 1n],
    ['-2^53-1', -(1n << 53n) - 1n],
    ['2^31', 1n << 31n],
    ['-1', -1n],
  ],
  sint64: [
    ['max', TWO63 - 1n],
    ['min', -TWO63],
    ['2^53+1', (1n << 53n) + 1n],
  ],
  sfixed64: [
    ['max', TWO63 - 1n],
    ['min', -TWO63],
    ['2^53+1', (1n << 53n) + 1n],
  ],
  uint64: [
    ['max', TWO64 - 1n],
    ['2^63-1', TWO63 - 1n],
    ['2^53+1', (1n << 53n) + 1n],
    ['2^31', 1n << 31n],
  ],
  fixed64: [
    ['max', TWO64 - 1n],
    ['2^53+1', (1n << 53n) + 1n],
  ],
  int32: [
    ['max', (1n << 31n) - 1n],
    ['min', -(1n << 31n)],
    ['-1', -1n],
  ],
  sint32: [
    ['max', (1n << 31n) - 1n],
    ['min', -(1n << 31n)],
  ],
  sfixed32: [
    ['max', (1n << 31n) - 1n],
    ['min', -(1n << 31n)],
  ],
  uint32: [
    ['max', (1n << 32n) - 1n],
    ['2^31', 1n << 31n],
  ],
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
  if (given !== undefined)
    return scalar(f.kind, f.kind === 'string' || f.kind === 'bytes' ? String(given) : typeof given === 'boolean' ? given : BigInt(given));
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
function baseMessage(
  type: string,
  types: DescriptorSet,
  opts: CaseOptions,
  depth: number,
  prefix: string,
  chain: string[],
  choose?: Map<number, number>,
): MessageValue {
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
    for (const [name, x] of [
      ['nan', NaN],
      ['inf', Infinity],
      ['-inf', -Infinity],
      ['huge', f.kind === 'float' ? 3.4e38 : 1.7e308],
      ['neg', -1],
    ] as const)
      out.push({ category: 'float-special', variant: name, values: [scalar(f.kind, x)] });
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
function withField(
  type: string,
  types: DescriptorSet,
  opts: CaseOptions,
  path: FieldDesc[],
  values: WireValue[],
  depth = 0,
  prefix = '',
  chain: string[] = [],
): MessageValue {
  const [f, ...rest] = path;
  const choose = f.oneof !== undefined ? new Map([[f.oneof, f.number]]) : undefined;
  const base = baseMessage(type, types, opts, depth, prefix, chain, choose);
  const fieldPath = prefix ? `${prefix}.${f.name}` : f.name;
  const replacement: WireValue[] =
    rest.length === 0 ? values : [{ t: 'msg', v: withField(f.typeName!, types, opts, rest, values, depth + 1, fieldPath, [...chain, f.typeName!]) }];
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
  add(
    'unknown-field',
    'unknown-field',
    Buffer.concat([
      base,
      encodeMessage([
        [9999, { t: 'len', v: Buffer.from('unknown') }],
        [536870911, { t: 'varint', v: 1n }],
      ]),
    ]),
  );
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
  if (
    /\b(select|insert into|update|delete from)\b[\s\S]*\b(from|set|values|where)\b|\bsqlstate\b|violates [\w ]*constraint|\brelation "|syntax error at or near|invalid byte sequence for encoding|out of range for type|\bpg_\w+|duplicate key value/i.test(
      message,
    )
  )
    return 'sql';
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

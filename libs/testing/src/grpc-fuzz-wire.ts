import { type ScalarKind } from './grpc-fuzz-descriptors';

// ---------------------------------------------------------------- wire encoding

/** One value on the wire: what a field holds before it is encoded. */
export type WireValue =
  { t: 'varint'; v: bigint } | { t: 'fixed64'; v: Buffer } | { t: 'fixed32'; v: Buffer } | { t: 'len'; v: Buffer } | { t: 'msg'; v: MessageValue };

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

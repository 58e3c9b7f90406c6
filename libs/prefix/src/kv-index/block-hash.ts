import { hash as oneShotHash } from 'node:crypto';

/**
 * vLLM's chained prefix-cache block hashes with `--prefix-caching-hash-algo
 * sha256_cbor` (vllm/v1/core/kv_cache_utils.py, vllm/utils/hashing.py; the
 * rule is restated in fixtures/kv_events/README.md):
 *
 *   NONE_HASH = sha256(cbor(str(PYTHONHASHSEED)))
 *   hash_i    = sha256(cbor([parent_bytes, [token ids of block i], extra_keys_i or null]))
 *
 * with parent = hash_{i-1} (raw 32 bytes) or NONE_HASH, full blocks only, and
 * CBOR in canonical (shortest-form) encoding. KV events carry each hash as
 * the last 8 bytes read big-endian (`VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=1`,
 * vLLM's default), which is what `blockHashes` returns.
 */
export interface BlockHashOptions {
  blockSize: number;
  /** PYTHONHASHSEED of the engine; the same string must be configured on both sides. */
  hashSeed: string;
  /** extra_keys of every block (the LoRA name is the only one modelled here). */
  loraName?: string | null;
}

/** Canonical CBOR of the few shapes vLLM hashes: byte strings, text, unsigned ints, arrays, null. */
type CborValue = Uint8Array | string | number | null | readonly CborValue[];

function head(out: number[], major: number, n: number): void {
  const m = major << 5;
  if (n < 24) out.push(m | n);
  else if (n < 0x100) out.push(m | 24, n);
  else if (n < 0x10000) out.push(m | 25, n >>> 8, n & 0xff);
  else if (n < 0x1_0000_0000) out.push(m | 26, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  else throw new RangeError(`CBOR length or integer ${n} too large for this encoder`);
}

function encode(v: CborValue, out: number[]): void {
  if (v === null) out.push(0xf6);
  else if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`token ids must be non-negative integers, got ${v}`);
    head(out, 0, v);
  } else if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    head(out, 3, b.length);
    for (const x of b) out.push(x);
  } else if (v instanceof Uint8Array) {
    head(out, 2, v.length);
    for (const x of v) out.push(x);
  } else {
    head(out, 4, v.length);
    for (const x of v) encode(x, out);
  }
}

export function cbor(v: CborValue): Buffer {
  const out: number[] = [];
  encode(v, out);
  return Buffer.from(out);
}

function sha256(b: Buffer): Buffer {
  return oneShotHash('sha256', b, 'buffer');
}

/** The 64-bit value KV events carry for a 32-byte block hash: its last 8 bytes, big-endian. */
export function eventHashOf(hash: Uint8Array): bigint {
  return Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).readBigUInt64BE(hash.byteLength - 8);
}

const noneHashes = new Map<string, Buffer>();

/** NONE_HASH for a seed: the parent of a sequence's first block. */
export function noneHash(hashSeed: string): Buffer {
  let h = noneHashes.get(hashSeed);
  if (!h) {
    h = sha256(cbor(hashSeed));
    noneHashes.set(hashSeed, h);
  }
  return h;
}

/** Writes a canonical CBOR head at `off`; returns the offset after it. */
function writeHead(buf: Buffer, off: number, major: number, n: number): number {
  const m = major << 5;
  if (n < 24) buf[off++] = m | n;
  else if (n < 0x100) {
    buf[off++] = m | 24;
    buf[off++] = n;
  } else if (n < 0x10000) {
    buf[off++] = m | 25;
    buf.writeUInt16BE(n, off);
    off += 2;
  } else if (n < 0x1_0000_0000) {
    buf[off++] = m | 26;
    buf.writeUInt32BE(n, off);
    off += 4;
  } else throw new RangeError(`CBOR length or integer ${n} too large for this encoder`);
  return off;
}

/**
 * Hashes one block at a time: `sha256(cbor([parent, block, extra]))` written
 * into one reused buffer and hashed one-shot, byte for byte what `cbor`
 * encodes (no intermediate arrays, no Hash object per block).
 */
export class BlockHasher {
  readonly blockSize: number;
  private readonly buf: Buffer;
  private readonly extra: Buffer;

  constructor(readonly opts: BlockHashOptions) {
    this.blockSize = opts.blockSize;
    this.extra = cbor(opts.loraName ? [opts.loraName] : null);
    // array(3) head, bytes(32) head + 32, array(bs) head, bs uint32s at 5 bytes each, extra.
    this.buf = Buffer.alloc(1 + 2 + 32 + 5 + 5 * this.blockSize + this.extra.length);
  }

  /** The parent of a sequence's first block (NONE_HASH for the seed). */
  get root(): Buffer {
    return noneHash(this.opts.hashSeed);
  }

  /** The raw hash of the block `tokens[start, start + blockSize)` chained from `parent` (32 bytes). */
  block(parent: Uint8Array, tokens: readonly number[], start: number): Buffer {
    const buf = this.buf;
    const bs = this.blockSize;
    buf[0] = 0x83;
    let off = writeHead(buf, 1, 2, parent.length);
    buf.set(parent, off);
    off = writeHead(buf, off + parent.length, 4, bs);
    for (let i = start; i < start + bs; i++) {
      const v = tokens[i];
      if (!Number.isInteger(v) || v < 0) throw new RangeError(`token ids must be non-negative integers, got ${v}`);
      off = writeHead(buf, off, 0, v);
    }
    this.extra.copy(buf, off);
    return sha256(buf.subarray(0, off + this.extra.length));
  }
}

/**
 * Raw 32-byte hashes of the full blocks of `tokens`, chained from `parent`
 * (NONE_HASH when omitted).
 */
export function rawBlockHashes(tokens: readonly number[], opts: BlockHashOptions, parent?: Uint8Array): Buffer[] {
  const hasher = new BlockHasher(opts);
  const n = Math.floor(tokens.length / opts.blockSize);
  const out = new Array<Buffer>(n);
  let prev: Uint8Array = parent ?? hasher.root;
  for (let i = 0; i < n; i++) prev = out[i] = hasher.block(prev, tokens, i * opts.blockSize);
  return out;
}

/** The event form (uint64) of every full block's hash. */
export function blockHashes(tokens: readonly number[], opts: BlockHashOptions): bigint[] {
  return rawBlockHashes(tokens, opts).map(eventHashOf);
}

import { createHash } from 'node:crypto';

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
  return createHash('sha256').update(b).digest();
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

/**
 * Raw 32-byte hashes of the full blocks of `tokens`, chained from `parent`
 * (NONE_HASH when omitted).
 */
export function rawBlockHashes(tokens: readonly number[], opts: BlockHashOptions, parent?: Uint8Array): Buffer[] {
  const bs = opts.blockSize;
  const extra = opts.loraName ? [opts.loraName] : null;
  const n = Math.floor(tokens.length / bs);
  const out = new Array<Buffer>(n);
  let prev: Uint8Array = parent ?? noneHash(opts.hashSeed);
  for (let i = 0; i < n; i++) {
    const block = tokens.slice(i * bs, (i + 1) * bs);
    const h = sha256(cbor([prev, block, extra]));
    out[i] = h;
    prev = h;
  }
  return out;
}

/** The event form (uint64) of every full block's hash. */
export function blockHashes(tokens: readonly number[], opts: BlockHashOptions): bigint[] {
  return rawBlockHashes(tokens, opts).map(eventHashOf);
}

import { decode } from '@msgpack/msgpack';
import type { KvBatch, KvEvent } from '@llmgw/prefix';

/**
 * vLLM's KV event wire format (fixtures/kv_events/README.md, vllm/distributed/kv_events.py):
 * PUB frames `[topic, seq (8-byte big-endian), msgpack([ts, events, dp_rank?])]`;
 * events either positional arrays with the tag first (before vLLM PR #42892)
 * or maps with the tag under `type` (after); hashes as uint64 or as raw bytes
 * (last 8 bytes, big-endian). Replay replies `[b"", (topic,) seq, payload]`,
 * ending with seq = -1 and an empty payload.
 */
export const REPLAY_END = 0xffff_ffff_ffff_ffffn;

export function seqOf(frame: Uint8Array): bigint {
  if (frame.byteLength !== 8) throw new Error(`sequence frame of ${frame.byteLength} bytes, want 8`);
  return Buffer.from(frame.buffer, frame.byteOffset, 8).readBigUInt64BE(0);
}

export function seqFrame(seq: number | bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(seq));
  return b;
}

function hashOf(v: unknown): bigint {
  if (typeof v === 'bigint') return BigInt.asUintN(64, v);
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt.asUintN(64, BigInt(v));
  if (v instanceof Uint8Array && v.byteLength >= 8) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).readBigUInt64BE(v.byteLength - 8);
  throw new Error(`bad block hash ${String(v)}`);
}

function hashes(v: unknown): bigint[] {
  if (!Array.isArray(v)) throw new Error('block_hashes is not an array');
  return v.map(hashOf);
}

function eventOf(v: unknown): KvEvent | undefined {
  let tag: unknown;
  let f: Record<string, unknown>;
  if (Array.isArray(v)) {
    tag = v[0];
    f = tag === 'BlockStored' ? { block_hashes: v[1], parent_block_hash: v[2] } : tag === 'BlockRemoved' ? { block_hashes: v[1], medium: v[2] } : {};
  } else if (v && typeof v === 'object') {
    f = v as Record<string, unknown>;
    tag = f.type;
  } else throw new Error('event is neither an array nor a map');
  switch (tag) {
    case 'BlockStored':
      return { type: 'BlockStored', blockHashes: hashes(f.block_hashes), parentBlockHash: f.parent_block_hash == null ? null : hashOf(f.parent_block_hash) };
    case 'BlockRemoved':
      return { type: 'BlockRemoved', blockHashes: hashes(f.block_hashes) };
    case 'AllBlocksCleared':
      return { type: 'AllBlocksCleared' };
    default:
      return undefined; // an event kind added later: skipped, not fatal
  }
}

/** Decodes one batch payload; throws on a malformed one. */
export function decodeBatch(seq: bigint, payload: Uint8Array): KvBatch {
  const v = decode(payload, { useBigInt64: true });
  if (!Array.isArray(v) || v.length < 2 || !Array.isArray(v[1])) throw new Error('batch is not [ts, events, …]');
  const events: KvEvent[] = [];
  for (const e of v[1] as unknown[]) {
    const ev = eventOf(e);
    if (ev) events.push(ev);
  }
  return { seq: Number(seq), events };
}

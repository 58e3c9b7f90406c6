import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blockHashes, cbor, eventHashOf, noneHash } from './block-hash';

/** Reads a capture keeping uint64 hashes exact (JSON.parse would round them to doubles). */
function capture(name: string) {
  const text = readFileSync(join(__dirname, '../../../../fixtures/kv_events', name), 'utf8');
  const raw = JSON.parse(text) as { token_ids: number[]; block_size: number; hash_seed: string; lora_name: string | null };
  const hashes = /"block_hashes"\s*:\s*\[([^\]]*)\]/
    .exec(text)![1]
    .split(',')
    .map((s) => BigInt(s.trim()));
  return { ...raw, hashes };
}

describe('vLLM sha256_cbor block hashes', () => {
  it('encodes canonical CBOR for the shapes vLLM hashes', () => {
    expect(cbor('42').toString('hex')).toBe('623432');
    expect(cbor([0, 23, 24, 255, 256, 65536]).toString('hex')).toBe('860017181818ff1901001a00010000');
    expect(cbor([new Uint8Array([1, 2]), null]).toString('hex')).toBe('82420102f6');
  });

  it('reproduces all 25 hashes of the base capture (Qwen3-0.6B, seed 42)', () => {
    const c = capture('llm-d_kv_event_base.json');
    expect(c.hashes).toHaveLength(25);
    expect(blockHashes(c.token_ids, { blockSize: c.block_size, hashSeed: c.hash_seed })).toEqual(c.hashes);
  });

  it('reproduces the LoRA capture with extra_keys = (lora_name,)', () => {
    const c = capture('llm-d_kv_event_lora.json');
    const got = blockHashes(c.token_ids, { blockSize: c.block_size, hashSeed: c.hash_seed, loraName: 'Alice' });
    expect(got).toEqual(c.hashes);
    expect(blockHashes(c.token_ids, { blockSize: c.block_size, hashSeed: c.hash_seed })).not.toEqual(c.hashes);
  });

  it('hashes full blocks only and depends on the seed', () => {
    const t = Array.from({ length: 40 }, (_, i) => i);
    expect(blockHashes(t, { blockSize: 16, hashSeed: '0' })).toHaveLength(2);
    expect(blockHashes(t, { blockSize: 16, hashSeed: '0' })[0]).not.toBe(blockHashes(t, { blockSize: 16, hashSeed: '1' })[0]);
    expect(eventHashOf(noneHash('0'))).toBe(eventHashOf(noneHash('0')));
  });
});

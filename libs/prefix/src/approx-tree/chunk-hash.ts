import { fmix32 } from '../hash';

/** Characters per chunk by default: about one 16-token KV block of English text. */
export const DEFAULT_CHUNK_CHARS = 64;

const TWO_32 = 0x1_0000_0000;
/** The high word keeps 21 bits so that a chunk hash is a safe integer (53 bits). */
const HI_MASK = 0x1f_ffff;

/**
 * Chained hashes of a text's full `chunkChars`-character chunks: hash i
 * depends on chunks 0..i, so equal hashes mean equal prefixes, and a hash
 * names a node of the prefix tree without storing the text. A trailing
 * partial chunk is not hashed (like vLLM's partial blocks).
 *
 * Each hash is a 53-bit safe integer built from two independently seeded
 * 32-bit FNV-1a passes finished with fmix32. Stable across processes and
 * versions: routers exchange these values, so changing this function is a
 * wire change (bump the sharing channel's version).
 */
export function chunkHashes(text: string, chunkChars: number = DEFAULT_CHUNK_CHARS): number[] {
  if (!Number.isInteger(chunkChars) || chunkChars < 1) throw new RangeError(`chunkChars must be a positive integer, got ${chunkChars}`);
  const n = Math.floor(text.length / chunkChars);
  const out = new Array<number>(n);
  let lo = 0x811c9dc5;
  let hi = 0x050c5d1f;
  for (let c = 0; c < n; c++) {
    const start = c * chunkChars;
    const end = start + chunkChars;
    for (let i = start; i < end; i++) {
      const ch = text.charCodeAt(i);
      lo = Math.imul(lo ^ ch, 0x01000193);
      hi = Math.imul(hi ^ ch, 0x01000193) ^ (hi >>> 15);
    }
    lo = fmix32(lo);
    hi = fmix32(hi ^ 0x9e3779b9);
    out[c] = (hi & HI_MASK) * TWO_32 + (lo >>> 0);
  }
  return out;
}

/** Small deterministic helpers: a seeded PRNG and fast non-cryptographic hashes. */
import { fmix32, mulberry32 } from '@llmgw/prefix';

export { mulberry32 };

/** FNV-1a over a string, 32 bits. */
export function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function mix32(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/**
 * A chained block hash: hash(parent, tokens) as a non-negative safe integer
 * (53 bits), so it survives JSON and compares with `===`. Two independent
 * 32-bit lanes make accidental collisions negligible at simulation scale.
 */
export function blockHash(parent: number | null, tokens: ArrayLike<number>, from = 0, to = tokens.length): number {
  const p = parent ?? 0x9e3779b9;
  const pLo = (p % 4294967296) | 0;
  const pHi = Math.floor(p / 4294967296) | 0;
  let a = mix32(mix32(0x3c6ef372, pLo), pHi);
  let b = mix32(mix32(0x7f4a7c15, pHi), pLo ^ 0x5bd1e995);
  for (let i = from; i < to; i++) {
    a = mix32(a, tokens[i]);
    b = mix32(b, tokens[i] ^ 0x27d4eb2f);
  }
  const hi = fmix32(a ^ (to - from)) & 0x1fffff;
  const lo = fmix32(b ^ (to - from));
  return hi * 4294967296 + lo;
}

import { hash, randomBytes } from 'node:crypto';

/** Every llmgw API key starts with this. */
export const KEY_PREFIX = 'sk-llmgw-';
/** How many characters of a key are kept in clear for display (`sk-llmgw-4f2a`). */
export const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 4;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^sk-llmgw-[0-9A-Za-z]{40,45}$/;

/** Base62 of a byte string, big-endian, without padding. */
export function base62(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out || '0';
}

/** A freshly minted key: the secret (shown once) and what is stored. */
export interface MintedKey {
  /** `sk-llmgw-<base62 of 32 random bytes>`; never stored. */
  key: string;
  /** Lowercase hex SHA-256 of `key`; the only stored copy. */
  hash: string;
  /** Display prefix, never used for auth. */
  prefix: string;
}

/** Mints a key from 32 random bytes (or the bytes given, for tests). */
export function mintApiKey(random: Uint8Array = randomBytes(32)): MintedKey {
  if (random.length !== 32) throw new Error('an API key needs exactly 32 random bytes');
  const key = KEY_PREFIX + base62(random);
  return { key, hash: hashApiKey(key), prefix: displayPrefix(key) };
}

/**
 * SHA-256 of the key as presented, hex. A fast hash on purpose: the input is
 * 256 random bits, so there is no dictionary for a slow hash to defend against
 * (docs/accounting.md#keys).
 */
export function hashApiKey(key: string): string {
  // One-shot: no Hash object per request (a key is hashed on every authenticated call).
  return hash('sha256', key, 'hex');
}

/** The display prefix of a key (`sk-llmgw-4f2a`). */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** True when the string has the shape of an llmgw key (not whether it exists). */
export function looksLikeApiKey(s: string): boolean {
  return KEY_PATTERN.test(s);
}

/** The bearer token of an Authorization header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

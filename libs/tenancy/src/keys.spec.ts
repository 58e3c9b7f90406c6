import { createHash } from 'node:crypto';
import { base62, bearerToken, displayPrefix, hashApiKey, looksLikeApiKey, mintApiKey } from './keys';

describe('API keys', () => {
  it.each([
    [[0], '0'],
    [[1], '1'],
    [[61], 'z'],
    [[62], '10'],
    [[1, 0], '48'],
    [[255, 255], 'H31'],
  ])('base62(%j) = %s', (bytes, want) => {
    expect(base62(Uint8Array.from(bytes))).toBe(want);
  });

  it('mints sk-llmgw-<base62 of 32 bytes>, stores only the SHA-256 and a display prefix', () => {
    const random = new Uint8Array(32).fill(0xab);
    const k = mintApiKey(random);
    expect(k.key).toMatch(/^sk-llmgw-[0-9A-Za-z]{40,45}$/);
    expect(k.hash).toBe(createHash('sha256').update(k.key).digest('hex'));
    expect(k.prefix).toBe(k.key.slice(0, 13));
    expect(k.prefix.length).toBeLessThan(k.key.length);
    expect(looksLikeApiKey(k.key)).toBe(true);
  });

  it('mints different keys each time', () => {
    const keys = new Set(Array.from({ length: 50 }, () => mintApiKey().key));
    expect(keys.size).toBe(50);
  });

  it('refuses a wrong amount of randomness', () => {
    expect(() => mintApiKey(new Uint8Array(16))).toThrow(/32 random bytes/);
  });

  it.each([
    ['sk-llmgw-abc', '7e0b7a8b'],
    ['', 'e3b0c442'],
  ])('hashApiKey(%j) is hex SHA-256', (key, head) => {
    const h = hashApiKey(key);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    if (key === '') expect(h.startsWith(head)).toBe(true);
    expect(h).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it.each([
    ['Bearer sk-llmgw-xyz', 'sk-llmgw-xyz'],
    ['bearer   tok ', 'tok'],
    ['Basic abc', undefined],
    ['', undefined],
    [undefined, undefined],
    ['Bearer a b', undefined],
  ])('bearerToken(%j) = %j', (h, want) => {
    expect(bearerToken(h)).toBe(want);
  });

  it.each([
    ['sk-llmgw-' + 'a'.repeat(43), true],
    ['sk-llmgw-short', false],
    ['sk-other-' + 'a'.repeat(43), false],
    ['sk-llmgw-' + 'a'.repeat(42) + '!', false],
  ])('looksLikeApiKey(%j) = %s', (s, want) => {
    expect(looksLikeApiKey(s)).toBe(want);
  });

  it('displayPrefix keeps 4 characters after sk-llmgw-', () => {
    expect(displayPrefix('sk-llmgw-4f2aXYZ')).toBe('sk-llmgw-4f2a');
  });
});

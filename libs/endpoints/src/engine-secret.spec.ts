import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngineKeyFile, deriveEngineSecret, EngineAuthorizer, readApiKeyFile, readEngineKeyFile } from './engine-secret';
import { decodeEndpoint, encodeEndpoint } from './redis-contract';
import type { EndpointInfo } from './types';

describe('engine secrets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-engine-key-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const key = Buffer.alloc(32, 7);

  it('derives one stable secret per replica id; another id or key gives another', () => {
    const a = deriveEngineSecret(key, 'chat-1a2b');
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(deriveEngineSecret(key, 'chat-1a2b')).toBe(a);
    expect(deriveEngineSecret(key, 'chat-1a2c')).not.toBe(a);
    expect(deriveEngineSecret(Buffer.alloc(32, 8), 'chat-1a2b')).not.toBe(a);
    expect(() => deriveEngineSecret(Buffer.alloc(16), 'x')).toThrow(/at least 32 bytes/);
  });

  it('creates a 0600 hex key once and reads it back; hex and raw files both load; loose or short files are refused', () => {
    const f = join(dir, 'engine.key');
    const k = createEngineKeyFile(f);
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(readFileSync(f, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(createEngineKeyFile(f).equals(k)).toBe(true);
    const raw = join(dir, 'raw.key');
    writeFileSync(raw, Buffer.alloc(32, 1), { mode: 0o600 });
    expect(readEngineKeyFile(raw).equals(Buffer.alloc(32, 1))).toBe(true);
    chmodSync(raw, 0o640);
    expect(() => readEngineKeyFile(raw)).toThrow(/readable by group or others \(mode 640\); chmod 600 it/);
    const short = join(dir, 'short.key');
    writeFileSync(short, 'abcd', { mode: 0o600 });
    expect(() => readEngineKeyFile(short)).toThrow(/must hold 32 random bytes/);
    expect(() => readEngineKeyFile(join(dir, 'none'))).toThrow(/no such file/);
  });

  it('reads a static api_key_file: one key, trimmed', () => {
    const f = join(dir, 'static.key');
    writeFileSync(f, ' sk-engine \n', { mode: 0o600 });
    expect(readApiKeyFile(f)).toBe('sk-engine');
    writeFileSync(f, 'two keys', { mode: 0o600 });
    expect(() => readApiKeyFile(f)).toThrow(/one API key/);
  });

  it('authorizes placed replicas by derivation, static endpoints by their key, others not at all', () => {
    const missing: string[] = [];
    const auth = new EngineAuthorizer(key, (id) => missing.push(id));
    expect(auth.header({ id: 'r1', auth: 'replica-key' })).toBe(`Bearer ${deriveEngineSecret(key, 'r1')}`);
    expect(auth.header({ id: 's1', apiKey: 'k' })).toBe('Bearer k');
    expect(auth.header({ id: 'o1' })).toBeUndefined();
    const none = new EngineAuthorizer(undefined, (id) => missing.push(id));
    expect(none.header({ id: 'r1', auth: 'replica-key' })).toBeUndefined();
    none.header({ id: 'r1', auth: 'replica-key' });
    expect(missing).toEqual(['r1']);
  });

  it('the endpoint record carries the auth marker, never a static key', () => {
    const e: EndpointInfo = {
      id: 'r1',
      url: 'http://h:1',
      model: 'm',
      engine: 'vllm',
      pool: 'p',
      priority: 0,
      weight: 100,
      draining: false,
      auth: 'replica-key',
      apiKey: 'must-not-leak',
    };
    const json = encodeEndpoint(e);
    expect(JSON.parse(json)).toMatchObject({ auth: 'replica-key' });
    expect(json).not.toContain('must-not-leak');
    expect(decodeEndpoint('r1', json)).toMatchObject({ id: 'r1', auth: 'replica-key' });
    expect(decodeEndpoint('r1', json)!.apiKey).toBeUndefined();
    expect(decodeEndpoint('r1', JSON.stringify({ url: 'http://h:1', model: 'm', api_key: 'x', apiKey: 'y' }))!.apiKey).toBeUndefined();
  });
});

import { z } from 'zod';
import { ConfigError, duration, listenAddress, parseConfig, parseDurationMs } from './load';

describe('config loading', () => {
  it.each([
    ['250ms', 250],
    ['2s', 2000],
    ['1.5m', 90000],
    ['1h', 3600000],
    ['7d', 604800000],
    ['40', 40],
    [15, 15],
  ])('parses duration %p', (input, ms) => {
    expect(parseDurationMs(input as any)).toBe(ms);
  });

  it.each(['2x', '-1s', 'soon', ''])('rejects duration %p', (input) => {
    expect(() => parseDurationMs(input)).toThrow(/invalid duration/);
  });

  const schema = z.object({ retries: z.number().int().min(0), timeout: duration(), name: z.string() }).strict();

  it('reports every issue at once, with paths', () => {
    try {
      parseConfig(schema, { retries: -1, timeout: 'x', extra: 1 }, 'server.yaml');
      throw new Error('unreachable');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const msg = (e as Error).message;
      expect(msg).toContain('server.yaml');
      expect(msg).toContain('retries');
      expect(msg).toContain('timeout');
      expect(msg).toContain('name');
      expect(msg).toMatch(/extra/);
    }
  });

  it('returns a frozen config', () => {
    const c = parseConfig(schema, { retries: 2, timeout: '2s', name: 'a' });
    expect(c.timeout).toBe(2000);
    expect(Object.isFrozen(c)).toBe(true);
  });
});

describe('listenAddress', () => {
  const schema = listenAddress();
  it.each(['127.0.0.1:8080', ':9090', '7070', '0.0.0.0:0', '[::1]:81', 'localhost:443'])('accepts %p', (s) => {
    expect(schema.safeParse(s).success).toBe(true);
  });
  it.each(['127.0.0.1:x', 'localhost', '1:99999', '', 'a b:80'])('rejects %p', (s) => {
    expect(schema.safeParse(s).success).toBe(false);
  });
});

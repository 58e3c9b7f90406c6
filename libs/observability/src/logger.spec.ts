import { PassThrough } from 'node:stream';
import { createLogger, createRegistry, logListening, redactSecrets, requestIdFrom, scrubSecrets } from './index';

function capture() {
  const stream = new PassThrough();
  const lines: any[] = [];
  stream.on('data', (b: Buffer) => b.toString().split('\n').filter(Boolean).forEach((l) => lines.push(JSON.parse(l))));
  return { stream, lines };
}

describe('logger', () => {
  it('stamps service and version and redacts credentials', async () => {
    const { stream, lines } = capture();
    const log = createLogger({ service: 'router', destination: stream });
    log.info({ headers: { authorization: 'Bearer sk-llmgw-abcdef123456' }, apiKey: 'sk-llmgw-x', model: 'm' }, 'hello');
    await new Promise((r) => setImmediate(r));
    expect(lines[0]).toMatchObject({ service: 'router', version: '0.1.0', model: 'm', msg: 'hello', level: 'info' });
    expect(JSON.stringify(lines[0])).not.toContain('abcdef123456');
    expect(lines[0].headers.authorization).toBe('[redacted]');
  });

  it('masks keys inside free text', () => {
    expect(redactSecrets('bad key sk-llmgw-AbCdEf0123456789 here')).toBe('bad key sk-llmgw-AbCd…[redacted] here');
  });

  it('keeps a sane x-request-id and replaces a hostile one', () => {
    expect(requestIdFrom('abc-123')).toBe('abc-123');
    expect(requestIdFrom('bad id\n')).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives each service its own registry', async () => {
    const a = createRegistry('a');
    const b = createRegistry('b');
    expect(a).not.toBe(b);
    expect((await a.metrics()).trim()).toBe('');
  });
});

describe('logListening', () => {
  it.each(['warn', 'error', 'info'])('writes the listening line at level %s', async (level) => {
    const { stream, lines } = capture();
    const log = createLogger({ service: 'x', level, destination: stream });
    logListening(log, { url: 'http://127.0.0.1:1' });
    log.info('ordinary info line');
    await new Promise((r) => setImmediate(r));
    expect(lines.filter((l) => l.msg === 'listening')).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:1', level: 'info' })]);
    expect(lines.some((l) => l.msg === 'ordinary info line')).toBe(level === 'info');
  });

  it('stays quiet when silent', async () => {
    const { stream, lines } = capture();
    logListening(createLogger({ service: 'x', level: 'silent', destination: stream }), { url: 'u' });
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual([]);
  });
});

describe('scrubSecrets', () => {
  it.each([
    [{ headers: { Authorization: 'Bearer x', 'x-api-key': 'y', accept: '*/*' } }, { headers: { Authorization: '[redacted]', 'x-api-key': '[redacted]', accept: '*/*' } }],
    [{ cfg: { tls: { key: '/etc/k.pem' }, password: 'p' }, n: 1 }, { cfg: { tls: { key: '[redacted]' }, password: '[redacted]' }, n: 1 }],
    [{ apiKey: 'k', token: null }, { apiKey: '[redacted]', token: null }],
  ])('censors %j', (input, want) => {
    const before = JSON.stringify(input);
    expect(scrubSecrets(input)).toEqual(want);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('returns the same object when there is nothing to hide', () => {
    const o = { reqId: 'r', model: 'm', timings: { ttft: 1 } };
    expect(scrubSecrets(o)).toBe(o);
  });
});


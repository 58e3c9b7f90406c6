import { execFileSync } from 'node:child_process';
import { constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createLogger, createRegistry, logListening, nonBlockingDestination, redactSecrets, requestIdFrom, scrubSecrets } from './index';

function capture() {
  const stream = new PassThrough();
  const lines: any[] = [];
  stream.on('data', (b: Buffer) =>
    b
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => lines.push(JSON.parse(l))),
  );
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
    [
      { headers: { Authorization: 'Bearer x', 'x-api-key': 'y', accept: '*/*' } },
      { headers: { Authorization: '[redacted]', 'x-api-key': '[redacted]', accept: '*/*' } },
    ],
    [
      { cfg: { tls: { key: '/etc/k.pem' }, password: 'p' }, n: 1 },
      { cfg: { tls: { key: '[redacted]' }, password: '[redacted]' }, n: 1 },
    ],
    [
      { apiKey: 'k', token: null },
      { apiKey: '[redacted]', token: null },
    ],
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

describe('the stdout destination', () => {
  it('never blocks the event loop when its reader stops reading: lines wait in memory, and past the bound are dropped and counted', async () => {
    // A pipe nobody reads, so it fills after 64 KiB: a FIFO opened for reading and writing, non-blocking
    // (as Node's own pipes are), whose only owner is the destination (it closes the fd once, on destroy).
    const dir = mkdtempSync(join(tmpdir(), 'llmgw-logpipe-'));
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    let drops = 0;
    const dest = nonBlockingDestination(fd, 256 * 1024, () => drops++);
    dest.on('error', () => undefined);
    const log = createLogger({ service: 't', destination: dest });
    const line = 'x'.repeat(1000);
    // ~2 MB: far past the pipe's buffer and the 256 KiB bound. A synchronous destination
    // (pino's default for stdout) would sleep in write(2)'s EAGAIN loop here and never return.
    for (let i = 0; i < 2000; i++) log.info({ i, line }, 'line');
    // ... the event loop still turns, and what did not fit was counted
    await new Promise((r) => setImmediate(r));
    expect(drops).toBeGreaterThan(1000);
    expect(drops).toBeLessThan(2000);
    const closed = new Promise((r) => dest.once('close', r));
    dest.destroy();
    await closed;
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes lines in batches: one write(2) for lines logged across many event-loop turns, and a lone line after the flush delay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmgw-logbatch-'));
    const lines = (f: string) => readFileSync(f, 'utf8').split('\n').filter(Boolean);
    const turn = () => new Promise((r) => setImmediate(r));
    // Batches of 4 KiB, a flush delay far longer than the test: only the batch size lets lines out.
    const file = join(dir, 'batch.log');
    const dest = nonBlockingDestination(openSync(file, 'w'), 1 << 20, () => undefined, { bytes: 4096, flushMs: 600_000 });
    let writes = 0;
    // What the file held when the first write(2) completed (sonic-boom may start the next batch at once).
    let firstBatch: number[] = [];
    dest.on('write', () => writes++);
    dest.once('write', () => (firstBatch = lines(file).map((l) => JSON.parse(l).i)));
    const log = createLogger({ service: 't', destination: dest });
    let i = 0;
    // One line per event-loop turn (as requests finish): an unbatched destination writes each on its own.
    for (; i < 20; i++) {
      log.info({ i }, 'line');
      await turn();
    }
    expect(writes).toBe(0);
    expect(lines(file)).toEqual([]);
    while (writes === 0) {
      log.info({ i: i++ }, 'line');
      await turn();
    }
    expect(firstBatch.length).toBeGreaterThan(20);
    expect(firstBatch).toEqual([...Array(firstBatch.length).keys()]);
    // end(), not destroy(): a batch still being written finishes before the file closes.
    await new Promise((r) => dest.once('close', r).end());
    const written = lines(file).map((l) => JSON.parse(l).i);
    expect(written).toEqual([...Array(i).keys()]);
    // Below the batch size, a line waits only for the flush delay.
    const lone = join(dir, 'lone.log');
    const dest2 = nonBlockingDestination(openSync(lone, 'w'), 1 << 20, () => undefined, { bytes: 4096, flushMs: 5 });
    createLogger({ service: 't', destination: dest2 }).info('alone');
    while (lines(lone).length === 0) await new Promise((r) => dest2.once('write', r));
    expect(JSON.parse(lines(lone)[0]).msg).toBe('alone');
    await new Promise((r) => dest2.once('close', r).end());
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes what waits in a batch when the process exits', () => {
    const script = `const { nonBlockingDestination, createLogger } = require(${JSON.stringify(require.resolve('./logger'))});
      const log = createLogger({ service: 't', destination: nonBlockingDestination(1, 1 << 20, () => {}, { bytes: 8192, flushMs: 60000 }) });
      for (let i = 0; i < 3; i++) log.info({ i }, 'before exit');
      process.exit(0);`;
    const out = execFileSync(process.execPath, ['-r', require.resolve('tsx/cjs'), '-e', script], { encoding: 'utf8' });
    expect(
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).i),
    ).toEqual([0, 1, 2]);
  });

  it('exports llmgw_log_lines_dropped_total with the default metrics', async () => {
    const text = await createRegistry('t', { defaultMetrics: true }).metrics();
    expect(text).toMatch(/^llmgw_log_lines_dropped_total\{service="t"\} 0$/m);
  });
});

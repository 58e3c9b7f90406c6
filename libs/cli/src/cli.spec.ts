import { overrideListen, parseListen, reachableHost, untilSignal } from './index';

describe('parseListen', () => {
  it.each([
    ['127.0.0.1:8080', { host: '127.0.0.1', port: 8080 }],
    [':9090', { host: '0.0.0.0', port: 9090 }],
    ['7070', { host: '0.0.0.0', port: 7070 }],
    ['[::1]:0', { host: '::1', port: 0 }],
  ])('%s', (s, want) => expect(parseListen(s)).toEqual(want));

  it.each(['localhost', 'a:b', '1:99999', ''])('rejects %p', (s) => expect(() => parseListen(s)).toThrow());

  it.each([
    ['0.0.0.0', '127.0.0.1'],
    ['::', '127.0.0.1'],
    ['::1', '[::1]'],
    ['10.0.0.5', '10.0.0.5'],
  ])('reachableHost(%s) = %s', (h, want) => {
    expect(reachableHost(h)).toBe(want);
  });
});

describe('overrideListen', () => {
  it.each([
    [undefined, '127.0.0.1:8080', undefined, '0', '127.0.0.1:0'],
    ['10.0.0.1:9000', '127.0.0.1:8080', '0.0.0.0', undefined, '0.0.0.0:9000'],
    [':7070', '127.0.0.1:7070', undefined, 7071, '0.0.0.0:7071'],
  ])('%p over %p with host %p port %p → %p', (configured, fallback, host, port, want) => {
    expect(overrideListen(configured, fallback, host, port)).toBe(want);
  });
});

describe('untilSignal', () => {
  it('closes on SIGTERM and resolves after close finishes', async () => {
    let closed = false;
    let finishClose!: () => void;
    const closing = new Promise<void>((r) => (finishClose = r));
    const done = untilSignal(async () => {
      await closing;
      closed = true;
    });
    let settled = false;
    void done.then(() => (settled = true));
    process.emit('SIGTERM');
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    finishClose();
    await done;
    expect(closed).toBe(true);
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });
});

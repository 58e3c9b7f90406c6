import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { parseTarget, startFaultProxy, type FaultProxy } from './fault-proxy';
import { waitUntil } from './wait';

/** A TCP target: answers each connection's first chunk with `reply(chunk)`; counts what it saw. */
async function tcpTarget(reply: (req: Buffer) => Buffer | undefined) {
  const seen = { connections: 0, bytes: 0, closed: 0 };
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    seen.connections++;
    sockets.add(s);
    s.on('data', (b: Buffer) => {
      seen.bytes += b.length;
      const out = reply(b);
      if (out) s.write(out);
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      seen.closed++;
      sockets.delete(s);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  return {
    addr: `127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        srv.close(() => r());
      }),
  };
}

/** A client connection that records what it receives and how it ended. */
function dial(port: number) {
  const s = net.connect(port, '127.0.0.1');
  const got = { bytes: Buffer.alloc(0), error: undefined as string | undefined, closed: false, connected: false };
  s.on('connect', () => (got.connected = true));
  s.on('data', (b: Buffer) => (got.bytes = Buffer.concat([got.bytes, b])));
  s.on('error', (e: NodeJS.ErrnoException) => (got.error = e.code));
  s.on('close', () => (got.closed = true));
  return { s, got };
}

const echo = (b: Buffer) => b;

describe('fault proxy', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });
  async function setup(reply: (req: Buffer) => Buffer | undefined = echo): Promise<{ p: FaultProxy; t: Awaited<ReturnType<typeof tcpTarget>> }> {
    const t = await tcpTarget(reply);
    cleanup.push(t.close);
    const p = await startFaultProxy({ target: t.addr });
    cleanup.push(() => p.close());
    return { p, t };
  }

  it('parses host:port and URLs, and refuses a target without a port', () => {
    expect(parseTarget('127.0.0.1:8000')).toEqual({ host: '127.0.0.1', port: 8000 });
    expect(parseTarget('http://localhost:81/v1')).toEqual({ host: 'localhost', port: 81 });
    expect(() => parseTarget('127.0.0.1')).toThrow(/no host and port/);
  });

  it('passes bytes both ways and HTTP through, on 127.0.0.1 and a port of its own', async () => {
    const { p } = await setup();
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const c = dial(p.port);
    c.s.write('hello');
    await waitUntil(() => c.got.bytes.toString() === 'hello', 'the echo');
    c.s.destroy();

    const srv = http.createServer((_req, res) => res.end('from the target'));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => srv.close(() => r())));
    const hp = await startFaultProxy({ target: `http://127.0.0.1:${(srv.address() as AddressInfo).port}` });
    cleanup.push(() => hp.close());
    const res = await fetch(`${hp.url}/x`);
    expect(await res.text()).toBe('from the target');
    expect(hp.stats().accepted).toBe(1);
  });

  it('latency: every chunk is held back at least the configured time, in order', async () => {
    const { p } = await setup();
    await p.set({ kind: 'latency', ms: 150 });
    const c = dial(p.port);
    await waitUntil(() => c.got.connected, 'the connection');
    const t0 = performance.now();
    c.s.write('a');
    await waitUntil(() => c.got.bytes.length === 1, 'the first echo');
    c.s.write('b');
    c.s.write('c');
    await waitUntil(() => c.got.bytes.length === 3, 'the rest');
    // Lower bounds only (a slow machine adds time, never removes it): two ways × 150 ms, twice.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(4 * 150 - 10);
    expect(c.got.bytes.toString()).toBe('abc');
    c.s.destroy();
  });

  it('bandwidth: a response is delivered no faster than the limit', async () => {
    const { p } = await setup(() => Buffer.alloc(20_000, 7));
    await p.set({ kind: 'bandwidth', bytesPerSecond: 40_000 });
    const c = dial(p.port);
    await waitUntil(() => c.got.connected, 'the connection');
    const t0 = performance.now();
    c.s.write('go');
    await waitUntil(() => c.got.bytes.length === 20_000, 'the whole response');
    // 20 kB at 40 kB/s: the last of 20 pieces leaves no earlier than 19/20 of half a second.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(450);
    c.s.destroy();
  });

  it('reset: delivers N bytes of the response, then the client gets a TCP reset', async () => {
    const { p, t } = await setup(() => Buffer.alloc(5000, 1));
    await p.set({ kind: 'reset', afterBytes: 100 });
    const c = dial(p.port);
    c.s.write('request');
    await waitUntil(() => c.got.closed, 'the client socket to close');
    // The reset is sent; Linux may report it as an end of stream when it lands behind bytes
    // the client has not read yet, so the error is not asserted here (it is, after 0 bytes).
    expect(c.got.bytes.length).toBe(100);
    expect(t.seen.bytes).toBe('request'.length); // the request was forwarded
    expect(p.stats().resets).toBe(1);
    await waitUntil(() => t.seen.closed === 1, 'the target connection to close');
  });

  it('reset after 0 bytes: nothing of the response reaches the client', async () => {
    const { p, t } = await setup(() => Buffer.from('response'));
    await p.set({ kind: 'reset', afterBytes: 0 });
    const c = dial(p.port);
    c.s.write('request');
    await waitUntil(() => c.got.closed, 'the client socket to close');
    expect(c.got.error).toBe('ECONNRESET');
    expect(c.got.bytes.length).toBe(0);
    expect(t.seen.bytes).toBe('request'.length);
  });

  it('reset counts from when it was set, on a connection already open; pass again serves new connections', async () => {
    const { p } = await setup(echo);
    const c = dial(p.port);
    c.s.write('0123456789');
    await waitUntil(() => c.got.bytes.length === 10, 'the first echo');
    await p.set({ kind: 'reset', afterBytes: 4 });
    c.s.write('abcdefgh');
    await waitUntil(() => c.got.closed, 'the reset');
    expect(c.got.bytes.toString()).toBe('0123456789abcd');
    await p.set({ kind: 'pass' });
    const d = dial(p.port);
    d.s.write('again');
    await waitUntil(() => d.got.bytes.toString() === 'again', 'an echo after the fault');
    d.s.destroy();
  });

  it('blackhole: accepts and reads, never forwards or answers; forwarding again resets what lost bytes', async () => {
    const { p, t } = await setup(echo);
    const before = dial(p.port);
    before.s.write('x');
    await waitUntil(() => before.got.bytes.length === 1, 'an echo before');
    await p.set({ kind: 'blackhole' });
    const c = dial(p.port);
    c.s.write('lost');
    before.s.write('lost too');
    // The proxy read both (an event, not a sleep): the target got neither, the clients nothing back.
    await waitUntil(() => p.stats().bytesDropped === 'lost'.length + 'lost too'.length, 'the proxy to read and drop both writes');
    expect(c.got.connected).toBe(true);
    expect(t.seen.connections).toBe(1);
    expect(t.seen.bytes).toBe(1);
    expect(c.got.bytes.length).toBe(0);
    expect(before.got.bytes.length).toBe(1);
    expect(c.got.closed || before.got.closed).toBe(false);
    await p.set({ kind: 'pass' });
    await waitUntil(() => c.got.closed && before.got.closed, 'both damaged connections to be reset');
    expect([c.got.error, before.got.error]).toEqual(['ECONNRESET', 'ECONNRESET']);
  });

  it('half-open: the request reaches the target, the response never reaches the client; the client closing reaches the target', async () => {
    const { p, t } = await setup(() => Buffer.from('answer'));
    await p.set({ kind: 'half_open' });
    const c = dial(p.port);
    c.s.write('question');
    await waitUntil(() => t.seen.bytes === 'question'.length, 'the target to get the request');
    await waitUntil(() => p.stats().bytesDropped === 'answer'.length, 'the proxy to drop the answer');
    expect(c.got.bytes.length).toBe(0);
    c.s.destroy();
    await waitUntil(() => t.seen.closed === 1, 'the target to see the client leave');
  });

  it('refuse: the port refuses connections and open ones are reset; leaving it listens on the same port', async () => {
    const { p } = await setup(echo);
    const open = dial(p.port);
    await waitUntil(() => open.got.connected, 'a connection');
    await p.set({ kind: 'refuse' });
    await waitUntil(() => open.got.closed, 'the open connection to go');
    const refused = dial(p.port);
    await waitUntil(() => refused.got.closed, 'the refusal');
    expect(refused.got.error).toBe('ECONNREFUSED');
    await p.set({ kind: 'pass' });
    const c = dial(p.port);
    c.s.write('back');
    await waitUntil(() => c.got.bytes.toString() === 'back', 'an echo on the same port');
    c.s.destroy();
  });

  it('a target that is down: the client is reset', async () => {
    const { p, t } = await setup(echo);
    await t.close();
    const c = dial(p.port);
    c.s.write('anyone?');
    await waitUntil(() => c.got.closed, 'the client to be cut');
    expect(c.got.error).toBe('ECONNRESET');
  });
});

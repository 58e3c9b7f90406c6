import { createServer as createHttpServer, request, Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import Fastify from 'fastify';
import { listenHttp, type Listener } from './listen';

/** Node shares a port between sockets of one process (SO_REUSEPORT) from 22.12 on. */
const [major, minor] = process.versions.node.split('.').map(Number);
const SHARES = major > 22 || (major === 22 && minor >= 12);

const never = new AbortController().signal;

function get(port: number, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/x', agent }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens `n` connections (the kernel completes them without the server's event loop). */
function openConnections(port: number, n: number): Socket[] {
  return Array.from({ length: n }, () => connect(port, '127.0.0.1').on('error', () => {}));
}

/**
 * Event-loop turns the server needs to take `n` waiting connections while every turn is kept
 * busy for `busyMs`: the turns are counted, never timed.
 */
async function turnsToAccept(sockets: number, n: number, busyMs = 2): Promise<number> {
  let accepted = 0;
  const server = createHttpServer((_req, res) => res.end('ok'));
  server.on('connection', () => accepted++);
  const l = await listenHttp(server, '127.0.0.1:0', { sockets });
  const clients: Socket[] = [];
  try {
    // The connects go out before the first turn; on loopback the kernel completes each at once,
    // and they wait in the accept queue for the server's turns.
    clients.push(...openConnections(l.port, n));
    let turns = 0;
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        if (accepted >= n) return resolve();
        if (++turns > 20 * n) return reject(new Error(`${accepted} of ${n} accepted after ${turns} turns`));
        const t = performance.now();
        while (performance.now() - t < busyMs);
        setImmediate(turn);
      };
      setImmediate(turn);
    });
    return turns;
  } finally {
    for (const c of clients) c.destroy();
    await l.close(AbortSignal.abort());
  }
}

describe('listenHttp with several sockets on one port', () => {
  let l: Listener | undefined;
  afterEach(async () => {
    await l?.close(AbortSignal.abort());
    l = undefined;
  });

  it('binds them all on one port and serves every connection through the one server', async () => {
    let connections = 0;
    const server = createHttpServer((req, res) => res.end(`hello ${req.url}`));
    server.on('connection', () => connections++);
    l = await listenHttp(server, '127.0.0.1:0', { sockets: 4 });
    expect(l.sockets).toBe(SHARES ? 4 : 1);
    expect(l.url).toBe(`http://127.0.0.1:${l.port}`);
    // 40 connections, each used twice (keep-alive): the kernel spreads them over the sockets.
    const agent = new Agent({ keepAlive: true, maxSockets: 40 });
    const first = await Promise.all(Array.from({ length: 40 }, () => get(l!.port, agent)));
    const again = await Promise.all(Array.from({ length: 40 }, () => get(l!.port, agent)));
    agent.destroy();
    expect([...first, ...again].every((r) => r.status === 200 && r.body === 'hello /x')).toBe(true);
    expect(connections).toBe(40);
  });

  it('takes a burst of waiting connections several per event-loop turn (one per turn with one socket)', async () => {
    const one = await turnsToAccept(1, 48);
    const eight = await turnsToAccept(8, 48);
    // One socket: libuv accepts one connection per turn.
    expect(one).toBeGreaterThanOrEqual(40);
    if (SHARES) expect(eight * 2).toBeLessThan(one);
    else expect(eight).toBeGreaterThanOrEqual(40);
  });

  it('refuses a port another listener holds, whether or not that one shares it', async () => {
    const held = await listenHttp(
      createHttpServer((_q, s) => s.end()),
      '127.0.0.1:0',
      { sockets: 4 },
    );
    try {
      await expect(listenHttp(createHttpServer(), `127.0.0.1:${held.port}`, { sockets: 4 })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      await expect(listenHttp(createHttpServer(), `127.0.0.1:${held.port}`)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await held.close(AbortSignal.abort());
    }
  });

  it('closes every socket: the port refuses connections afterwards and can be bound again', async () => {
    const server = createHttpServer((_q, s) => s.end('ok'));
    const first = await listenHttp(server, '127.0.0.1:0', { sockets: 4 });
    await first.close(never);
    const refused = await Promise.all(
      openConnections(first.port, 8).map(
        (c) =>
          new Promise<string>((resolve) => {
            c.once('connect', () => (c.destroy(), resolve('connected')));
            c.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
          }),
      ),
    );
    expect(new Set(refused)).toEqual(new Set(['ECONNREFUSED']));
    l = await listenHttp(createHttpServer(), `127.0.0.1:${first.port}`, { sockets: 4 });
    expect(l.port).toBe(first.port);
  });

  it('serves a fastify app the same way (its routes, its close)', async () => {
    const app = Fastify();
    app.get('/x', async () => 'from fastify');
    l = await listenHttp(app, '127.0.0.1:0', { sockets: 3 });
    expect(l.sockets).toBe(SHARES ? 3 : 1);
    const agent = new Agent({ keepAlive: true, maxSockets: 24 });
    const answers = await Promise.all(Array.from({ length: 24 }, () => get(l!.port, agent)));
    agent.destroy();
    expect(answers.every((r) => r.status === 200 && r.body === 'from fastify')).toBe(true);
    await l.close(never);
    l = undefined;
    expect(app.server.listening).toBe(false);
  });
});

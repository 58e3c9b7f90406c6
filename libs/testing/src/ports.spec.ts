import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { Worker } from 'node:worker_threads';
import { freePort, freePortRange, listeningSockets } from './ports';

describe('freePortRange', () => {
  it('returns a range of free ports, skipping one with a port in use', async () => {
    const [low, high] = await freePortRange(20);
    expect(high - low).toBe(19);
    // A port in use by another process's listener, inside the range the first try lands on.
    const busy: Server = createServer();
    let busyPort = 0;
    for (let p = 25_000 + Math.floor(Math.random() * 5000); !busyPort; p++)
      busyPort = await new Promise<number>((r) => busy.once('error', () => r(0)).listen(p, '127.0.0.1', () => r(p)));
    try {
      const picks = [(busyPort - 5 - 21_000) / (32_000 - 21_000 - 20), 0.999];
      const [l2, h2] = await freePortRange(20, { random: () => picks.shift() ?? Math.random() });
      expect(l2 > busyPort || h2 < busyPort).toBe(true);
      expect(picks).toEqual([]);
    } finally {
      busy.close();
    }
  });

  it('never gives this process the same port twice: a port handed out is free only until its user binds it', async () => {
    // Every pick tries the same port first; nothing binds the ports in between.
    const pick = () => {
      let first = true;
      return freePortRange(1, { random: () => (first ? ((first = false), 0.5) : Math.random()) });
    };
    const ports: number[] = [];
    for (let i = 0; i < 5; i++) ports.push((await pick())[0]);
    ports.push(...(await Promise.all(Array.from({ length: 5 }, pick))).map(([p]) => p));
    expect(new Set(ports).size).toBe(10);
  });
});

describe('freePort', () => {
  it('picks a bindable port below the ephemeral range (no outgoing connection is handed it as its source port)', async () => {
    const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    const port = await freePort();
    expect(port).toBeLessThan(ephemeralLow);
    const s: Server = createServer();
    await new Promise<void>((r, j) => s.once('error', j).listen(port, '127.0.0.1', () => r()));
    await new Promise((r) => s.close(r));
  });
});

describe('listeningSockets', () => {
  it('finds a listening socket and the connections waiting in its accept queue', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    expect(listeningSockets(port)).toEqual([{ acceptQueue: 0 }]);
    // A worker thread connects three clients while this thread is held in Atomics.wait, so this
    // event loop accepts none of them: the kernel completes them and they wait in the queue.
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(
      `const net = require('node:net'); const { workerData: d } = require('node:worker_threads');
       const f = new Int32Array(d.sab); let n = 0;
       for (let i = 0; i < 3; i++) net.connect(d.port, '127.0.0.1', () => { if (++n === 3) { Atomics.store(f, 0, 1); Atomics.notify(f, 0); } });`,
      { eval: true, workerData: { sab: flag.buffer, port } },
    );
    try {
      expect(Atomics.wait(flag, 0, 0, 20_000)).toBe('ok');
      expect(listeningSockets(port)).toEqual([{ acceptQueue: 3 }]);
    } finally {
      await worker.terminate();
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(listeningSockets(port)).toEqual([]);
  });
});

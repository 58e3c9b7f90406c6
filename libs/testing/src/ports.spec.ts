import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { freePort, freePortRange } from './ports';

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

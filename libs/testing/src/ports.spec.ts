import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { freePort, freePortRange } from './ports';

describe('freePortRange', () => {
  it('returns a range of free ports, skipping one with a port in use', async () => {
    const [low, high] = await freePortRange(20);
    expect(high - low).toBe(19);
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen(low + 5, '127.0.0.1', () => r()));
    try {
      // The first try lands on the busy range, the second elsewhere.
      const picks = [(low - 21_000) / (32_000 - 21_000 - 20), 0.999];
      const [l2, h2] = await freePortRange(20, { random: () => picks.shift() ?? Math.random() });
      expect(l2 > low + 5 || h2 < low + 5).toBe(true);
    } finally {
      busy.close();
    }
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

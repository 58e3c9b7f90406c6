import { createServer, type Server } from 'node:net';
import { freePortRange } from './ports';

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

import { Snapshot } from './snapshot';

describe('Snapshot', () => {
  it('serves fresh values, serves stale ones while one refresh runs, waits past the stale limit and after invalidate', async () => {
    let t = 0;
    let calls = 0;
    let release: (() => void) | undefined;
    const s = new Snapshot(
      async () => {
        calls++;
        if (calls === 2) await new Promise<void>((r) => (release = r));
        return calls;
      },
      { freshMs: 1000, staleMs: 5000 },
      () => t,
    );
    expect(await s.get()).toBe(1);
    t = 500;
    expect(await s.get()).toBe(1);
    expect(calls).toBe(1);
    t = 2000;
    // Stale: answered at once with the old value; one refresh (held open) behind it, shared.
    expect(await s.get()).toBe(1);
    expect(await s.get()).toBe(1);
    expect(calls).toBe(2);
    release!();
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));
    expect(await s.get()).toBe(2);
    s.invalidate();
    expect(await s.get()).toBe(3);
    t = 10_000;
    expect(await s.get()).toBe(4);
  });
});

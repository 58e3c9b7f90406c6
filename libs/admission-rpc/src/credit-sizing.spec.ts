import { AdmissionController, DEFAULT_ADMISSION_CONFIG, ManualClock, type Lease } from '@llmgw/admission-core';
import { CreditBook } from './credits';
import { CreditSizer } from './credit-sizing';
import { mulberry32 } from '@llmgw/prefix';

/** Pool "p" of model "m": `replicas` engines declaring `slots` each, idle. */
function pool(replicas: number, slots: number, clock?: ManualClock) {
  const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG, clock ? { clock } : {});
  ctl.updatePool(
    'p',
    Array.from({ length: replicas }, (_, i) => ({ id: `e${i}`, running: 0, waiting: 0, declaredCapacity: slots })),
    'm',
  );
  return ctl;
}

const bronze = (i: number) => ({ requestId: `x${i}`, band: 'bronze', tenant: 't', model: 'm', candidatePools: ['p'], estimatedTokens: 1 });

/** How many lowest-band requests the rule admits into an idle pool: granted one by one until one queues. */
async function lowestBandAdmits(replicas: number, slots: number): Promise<number> {
  const ctl = pool(replicas, slots);
  let n = 0;
  for (;;) {
    const r = ctl.acquire(bronze(n));
    if (ctl.queued() > 0) break;
    await r;
    n++;
  }
  ctl.close();
  return n;
}

describe('CreditSizer: a credit sized from the router’s demand', () => {
  it('gives a router with little demand the floor, grows with what it has in flight (2×) and its growth, and forgets a peak slowly', () => {
    let t = 0;
    const s = new CreditSizer({ max: 4096, now: () => t });
    expect(s.want('A', 'm', 'p', { inUse: 0, exact: 0, spilled: 0 })).toBe(256);
    expect(s.want('A', 'm', 'p', { inUse: 100, exact: 0, spilled: 0 })).toBe(400); // 100 in flight, grown by 100 → 2 × 200
    t += 250;
    expect(s.want('A', 'm', 'p', { inUse: 150, exact: 50, spilled: 0 })).toBe(600); // 200 in flight, grown by 100 → 2 × 300
    s.granted('A', 'm', 'p', 600);
    t += 250;
    // it ran out: 30 Acquire calls since; it needed at least its limit and those
    expect(s.want('A', 'm', 'p', { inUse: 600, exact: 30, spilled: 30 })).toBe(2 * (630 + 430));
    // demand gone: the peak halves every 2 s, never below the floor
    t += 2000;
    expect(s.want('A', 'm', 'p', { inUse: 0, exact: 0, spilled: 0 })).toBe(1060);
    t += 20_000;
    expect(s.want('A', 'm', 'p', { inUse: 0, exact: 0, spilled: 0 })).toBe(256);
    // the cap, and 0 = credits off
    expect(new CreditSizer({ max: 300 }).want('A', 'm', 'p', { inUse: 1000, exact: 0, spilled: 0 })).toBe(300);
    expect(new CreditSizer({ max: 0 }).want('A', 'm', 'p', { inUse: 10, exact: 0, spilled: 0 })).toBe(0);
  });

  it('counts a router’s Acquire leases as its demand until they end, and forgets a silent router', () => {
    const s = new CreditSizer({ max: 4096, floor: 1, now: () => 0 });
    s.acquired('A', 'l1', 'm', 'p');
    s.acquired('A', 'l2', 'm', 'p');
    s.acquired('B', 'l3', 'm', 'p');
    s.released('l1');
    const ctl = pool(2, 2000);
    // A: 1 exact in flight + 2 Acquires since the last renewal (previous limit 0) → need 2 → 4
    expect(s.renew(ctl, 'A', [{ model: 'm', pool: 'p', inUse: 0 }], 1000)).toEqual([{ model: 'm', pool: 'p', limit: 4 }]);
    s.forget('B');
    s.released('l3'); // already forgotten: no effect
    expect(s.want('B', 'm', 'p', { inUse: 0, exact: 0, spilled: 0 })).toBe(1);
    ctl.close();
  });

  it('still answers 0 while a request is queued, whatever the demand', async () => {
    const ctl = pool(1, 4);
    const s = new CreditSizer({ max: 4096 });
    const held = [];
    for (let i = 0; ctl.queued() === 0; i++) held.push(ctl.acquire(bronze(i)));
    expect(s.renew(ctl, 'A', [{ model: 'm', pool: 'p', inUse: 500 }], 1000)[0].limit).toBe(0);
    ctl.close();
    await Promise.all(held);
  });

  it('keeps the global bound over random interleavings: credits (as reserved) plus leases never exceed what the lowest band is admitted', async () => {
    const [replicas, slots] = [2, 150];
    const admits = await lowestBandAdmits(replicas, slots);
    expect(admits).toBeGreaterThan(250);
    let closest = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const rnd = mulberry32(seed);
      const clock = new ManualClock();
      const ctl = pool(replicas, slots, clock);
      const sizer = new CreditSizer({ max: 4096, now: () => clock.now() });
      const routers = ['A', 'B', 'C'].map((id) => ({ id, limit: 0, inUse: 0, leases: [] as Lease[] }));
      for (let step = 0; step < 400; step++) {
        const r = routers[Math.floor(rnd() * routers.length)];
        const op = rnd();
        if (op < 0.25) {
          // renewal: its credit may grow with demand, but only within the rule
          [{ limit: r.limit }] = sizer.renew(ctl, r.id, [{ model: 'm', pool: 'p', inUse: r.inUse }], 1000);
        } else if (op < 0.6) {
          // a burst: on credit while it lasts, then by Acquire (granted, or queued and given up)
          for (let k = Math.floor(rnd() * 60); k > 0; k--) {
            if (r.inUse < r.limit) r.inUse++;
            else {
              const gone = new AbortController();
              const g = ctl.acquire(bronze(step * 100 + k), gone.signal);
              if (ctl.queued() > 0) gone.abort();
              const res = await g;
              if (res.kind !== 'granted') break;
              r.leases.push(res.lease);
              sizer.acquired(r.id, res.lease.id, 'm', 'p');
            }
          }
        } else if (op < 0.9) {
          // requests end
          r.inUse -= Math.floor(rnd() * (r.inUse + 1));
          for (let k = Math.floor(rnd() * (r.leases.length + 1)); k > 0; k--) {
            const l = r.leases.pop()!;
            l.release();
            sizer.released(l.id);
          }
        } else {
          // time passes; every router renews within its interval (250 ms), as CreditBook's timer does
          clock.advance(Math.floor(rnd() * 250));
          for (const x of routers) [{ limit: x.limit }] = sizer.renew(ctl, x.id, [{ model: 'm', pool: 'p', inUse: x.inUse }], 1000);
        }
        const used = routers.reduce((a, x) => a + Math.max(x.limit, x.inUse) + x.leases.length, 0);
        const held = routers.reduce((a, x) => a + x.inUse + x.leases.length, 0);
        // What the routers may have admitted at once (every credit fully used) never exceeds the rule.
        expect(used).toBeLessThanOrEqual(admits);
        expect(held).toBeLessThanOrEqual(admits);
        closest = Math.max(closest, used);
      }
      ctl.close();
    }
    // the interleavings did press against the bound
    expect(closest).toBeGreaterThan(admits * 0.9);
  });
});

/**
 * One router's open-loop load through a CreditBook renewing from a CreditSizer
 * over a big idle pool (3 × 2000 declared slots), 1 ms at a time on fake
 * timers: 300 req/s at 100 ms latency (30 in flight), then a step to 1000
 * req/s while latency grows from 100 to 600 ms in a second (in flight 100 →
 * 600), as when the machine falls behind. Returns the requests admitted by
 * Acquire (no credit) after the first second.
 */
async function stepped(sizer: CreditSizer): Promise<{ acquired: number; onCredit: number; limit: number }> {
  const ctl = pool(3, 2000);
  const book = new CreditBook({
    renew: async (uses) => ({ grants: sizer.renew(ctl, 'A', uses, 1500), ttlMs: 1500, fencingToken: 1 }),
    intervalMs: 250,
    now: () => Date.now(),
  });
  book.start();
  const ends: Array<{ at: number; end: () => void }> = [];
  let acquired = 0;
  let onCredit = 0;
  let due = 0;
  for (let t = 0; t < 5000; t++) {
    const [rate, latency] = t < 3000 ? [300, 100] : [1000, Math.min(600, 100 + (t - 3000) / 2)];
    for (due += rate / 1000; due >= 1; due--) {
      if (book.take('m', 'p')) {
        if (t >= 1000) onCredit++;
        ends.push({ at: t + latency, end: () => book.put('m', 'p') });
        continue;
      }
      const res = await ctl.acquire({ ...bronze(t), band: 'gold' });
      if (res.kind !== 'granted') throw new Error(`not granted: ${res.reason}`);
      if (t >= 1000) acquired++;
      sizer.acquired('A', res.lease.id, 'm', 'p');
      ends.push({
        at: t + latency,
        end: () => {
          res.lease.release();
          sizer.released(res.lease.id);
        },
      });
    }
    await jest.advanceTimersByTimeAsync(1);
    for (let i = ends.length - 1; i >= 0; i--) if (ends[i].at <= t) ends.splice(i, 1)[0].end();
  }
  const limit = book.state('m', 'p')?.limit ?? 0;
  book.close();
  ctl.close();
  return { acquired, onCredit, limit };
}

describe('a 300 → 1000 req/s step', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('is served on credit when the credit is sized from demand; a fixed credit of 256 falls into per-request Acquire', async () => {
    const sized = await stepped(new CreditSizer({ max: 4096 }));
    const fixed = await stepped(new CreditSizer({ max: 256 }));
    expect(sized.acquired).toBe(0);
    expect(sized.limit).toBeGreaterThanOrEqual(1200);
    expect(fixed.acquired).toBeGreaterThan(500);
  });
});

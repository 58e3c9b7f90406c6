import { ManualClock } from './clock';
import { DEFAULT_ADMISSION_CONFIG } from './config';
import { AdmissionController } from './controller';
import { feedPools } from './pools';

const req = (model: string, pool = 'p') => ({ requestId: 'r', band: 'bronze', tenant: 't', model, candidatePools: [pool], estimatedTokens: 1 });

describe('feedPools', () => {
  it('keeps each model of a shared pool apart and skips draining replicas', async () => {
    const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG, { clock: new ManualClock() });
    const eps = [
      { id: 'a1', pool: 'p', model: 'a' },
      { id: 'b1', pool: 'p', model: 'b' },
      { id: 'b2', pool: 'p', model: 'b', draining: true },
    ];
    const stats: Record<string, { waiting: number; running: number }> = { a1: { waiting: 40, running: 4 }, b1: { waiting: 0, running: 4 } };
    const keys = feedPools(ctl, eps, (id) => stats[id]);
    expect(keys.size).toBe(2);
    expect(ctl.saturation('p', 'a')).toBe(10);
    expect(ctl.saturation('p', 'b')).toBe(0);
    expect((await ctl.acquire(req('b'))).kind).toBe('granted');
    const held = ctl.acquire(req('a'));
    // model a's pool vanishes: its waiter stays queued (no replicas = saturated)
    feedPools(ctl, eps.slice(1), (id) => stats[id], keys);
    expect(ctl.saturation('p', 'a')).toBe(Number.POSITIVE_INFINITY);
    ctl.close();
    expect(await held).toMatchObject({ kind: 'rejected' });
  });

  it("passes an endpoint's declared max_num_seqs on as the replica's confirmed capacity", () => {
    const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG, { clock: new ManualClock() });
    feedPools(ctl, [{ id: 'a1', pool: 'p', model: 'a', maxNumSeqs: 10 }], () => ({ waiting: 0, running: 5 }));
    // 5 of 10 confirmed slots in use: the slot component is exactly half
    expect(ctl.saturation('p', 'a')).toBeCloseTo(0.5);
    ctl.close();
  });

  it("passes an endpoint's target_waiting on: the replica's queue is measured against it, not the configured default", () => {
    const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG, { clock: new ManualClock() });
    feedPools(ctl, [{ id: 'a1', pool: 'p', model: 'a', targetWaiting: 2 }], () => ({ waiting: 3, running: 0 }));
    // 3 waiting against its own target of 2 (the default would give 3 ÷ 4)
    expect(ctl.saturation('p', 'a')).toBeCloseTo(1.5);
    ctl.close();
  });

  it('never adopts a released lease it granted itself', async () => {
    const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG, { clock: new ManualClock() });
    feedPools(ctl, [{ id: 'a1', pool: 'p', model: 'a' }], () => ({ waiting: 0, running: 0 }));
    const r = await ctl.acquire(req('a'));
    if (r.kind !== 'granted') throw new Error('not granted');
    r.lease.release();
    expect(ctl.adopt(r.lease.id, 'p', 'a')).toBe(false);
    expect(ctl.outstandingLeases()).toBe(0);
  });

  it('adopts leases granted elsewhere so a failover keeps the outstanding count', () => {
    const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG, { clock: new ManualClock() });
    feedPools(ctl, [{ id: 'a1', pool: 'p', model: 'a' }], () => ({ waiting: 0, running: 0 }));
    const before = ctl.saturation('p', 'a');
    for (let i = 0; i < 9; i++) expect(ctl.adopt(`old-${i}`, 'p', 'a')).toBe(true);
    expect(ctl.adopt('old-0', 'p', 'a')).toBe(false);
    expect(ctl.saturation('p', 'a')).toBeGreaterThan(before);
    expect(ctl.release('old-3')).toBe(true);
    expect(ctl.outstandingLeases()).toBe(8);
    // a KeepAlive racing the Release cannot bring a released lease back, nor one of our own
    expect(ctl.adopt('old-3', 'p', 'a')).toBe(false);
    expect(ctl.outstandingLeases()).toBe(8);
  });
});

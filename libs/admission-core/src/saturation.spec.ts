import fc from 'fast-check';
import { ManualClock } from './clock';
import { DEFAULT_BANDS, type AdmissionCoreConfig } from './config';
import { AdmissionController, type ReplicaStats } from './controller';
import { bandVerdict, borrowLimit, poolSaturationParts, type BandStanding, type SaturationParts } from './saturation';
import type { ReplicaLoad } from './types';

const T = { targetWaitingPerReplica: 4, kvCeiling: 0.9 };
const load = (o: Partial<ReplicaLoad>): ReplicaLoad => ({ waiting: 0, running: 0, inflight: 0, batchCapacity: 8, capacityConfirmed: true, ...o });

describe('saturation components', () => {
  it.each<[string, ReplicaLoad[], number, Partial<SaturationParts>]>([
    ['6 of 8 slots running → slots 0.75', [load({ running: 6 })], 0, { slots: 0.75, queue: 0, kv: 0, total: 0.75, used: 6, capacity: 8 }],
    ['capacity not confirmed → no slot component', [load({ running: 6, capacityConfirmed: false })], 0, { slots: 0, total: 0, capacity: 0 }],
    ['8 running + 2 waiting → slots 1, queue 2 ÷ 4 = 0.5', [load({ running: 8, waiting: 2 })], 0, { slots: 1, queue: 0.5, total: 1 }],
    ['kv 0.45 ÷ 0.9 = 0.5', [load({ running: 2, kvUsage: 0.45 })], 0, { slots: 0.25, kv: 0.5, total: 0.5 }],
    ['idle scrape, 10 leases on 8 slots → used 8, queue (10 − 8) ÷ 4 = 0.5', [load({})], 10, { slots: 1, used: 8, queue: 0.5 }],
    ['two replicas 4/8 and 8/8 → slots 12 ÷ 16 = 0.75', [load({ running: 4 }), load({ running: 8 })], 0, { slots: 0.75, used: 12, capacity: 16, confirmed: 2 }],
    [
      'slots pooled over confirmed replicas only; queue averaged over all',
      [load({ running: 4 }), load({ running: 3, waiting: 4, capacityConfirmed: false })],
      0,
      { slots: 0.5, queue: 0.5, capacity: 8, replicas: 2 },
    ],
    ['9 waiting on 4 target → queue 2.25 dominates', [load({ running: 8, waiting: 9 })], 0, { total: 2.25 }],
    [
      "a replica's own target waiting (applied capacity) replaces the pool's: 2 ÷ 1 and 2 ÷ 4 → mean 1.25",
      [load({ running: 8, waiting: 2, targetWaiting: 1 }), load({ running: 8, waiting: 2 })],
      0,
      { queue: 1.25 },
    ],
  ])('%s', (_name, replicas, leases, want) => {
    expect(poolSaturationParts(replicas, T, leases)).toMatchObject(want);
  });

  it('a pool with no replicas is infinitely saturated and admits no band', () => {
    const p = poolSaturationParts([], T, 1);
    expect(p.total).toBe(Number.POSITIVE_INFINITY);
    expect(bandVerdict(p, { ceiling: 1, top: true, higherDemand: false, headroomPerReplica: 1 })).toMatchObject({ admit: false, rule: 'held:no-replicas' });
  });
});

/** A pool of `replicas` confirmed replicas of `slots` each, with `used` slots in use after the admission. */
function after(used: number, replicas = 2, slots = 8, over: Partial<SaturationParts> = {}): SaturationParts {
  const capacity = replicas * slots;
  const s = Math.min(1, used / capacity);
  return { slots: s, queue: 0, kv: 0, total: s, used: Math.min(used, capacity), capacity, confirmed: replicas, replicas, ...over };
}

const band = (name: string, over: Partial<BandStanding> = {}): BandStanding => {
  const b = DEFAULT_BANDS.find((x) => x.name === name)!;
  return { ceiling: b.saturationCeiling, top: name === 'platinum', higherDemand: false, headroomPerReplica: 1, ...over };
};

describe('headroom per band (2 replicas × 8 slots = 16, slot_headroom_per_replica 1)', () => {
  it.each<[string, BandStanding, SaturationParts, boolean, string]>([
    // alone, a lower band borrows every idle slot but one per replica: 16 − 2 = 14
    ['bronze alone, 14th slot → borrow', band('bronze'), after(14), true, 'borrow'],
    ['bronze alone, 15th slot → held (the headroom)', band('bronze'), after(15), false, 'held:slots'],
    // with a higher band active it keeps to its share: 0.30 × 16 = 4.8 slots
    ['bronze under platinum demand, 4th slot (0.25) → share', band('bronze', { higherDemand: true }), after(4), true, 'share'],
    ['bronze under platinum demand, 5th slot (0.3125) → held', band('bronze', { higherDemand: true }), after(5), false, 'held:slots'],
    ['silver under gold demand, 9th slot (0.5625 ≤ 0.60) → share', band('silver', { higherDemand: true }), after(9), true, 'share'],
    ['silver under gold demand, 10th slot (0.625) → held', band('silver', { higherDemand: true }), after(10), false, 'held:slots'],
    ['gold under platinum demand, 13th slot (0.8125 ≤ 0.85) → share', band('gold', { higherDemand: true }), after(13), true, 'share'],
    ['gold under platinum demand, 14th slot (0.875) → held', band('gold', { higherDemand: true }), after(14), false, 'held:slots'],
    // the top band takes every slot, then queues at the engine up to ceiling × target
    ['platinum, 16th slot → top', band('platinum'), after(16), true, 'top'],
    ['platinum, all slots and 4 queued per replica (queue 1.0) → top', band('platinum'), after(16, 2, 8, { queue: 1 }), true, 'top'],
    ['platinum, 5 queued per replica (queue 1.25) → held', band('platinum'), after(16, 2, 8, { queue: 1.25 }), false, 'held:queue'],
    // waiting and KV components hold every band at its ceiling
    ['bronze with 2 queued per replica (queue 0.5) → held', band('bronze'), after(2, 2, 8, { queue: 0.5 }), false, 'held:queue'],
    ['bronze with kv 0.35 of ceiling → held', band('bronze'), after(2, 2, 8, { kv: 0.35 }), false, 'held:kv'],
    ['gold with kv 0.8 of ceiling → admitted', band('gold'), after(2, 2, 8, { kv: 0.8 }), true, 'share'],
    // headroom never reserves a single-slot engine whole: bronze alone may take it
    ['bronze alone on 2 single-slot replicas, 2nd slot → borrow', band('bronze'), after(2, 2, 1), true, 'borrow'],
    ['bronze alone, slot_headroom_per_replica 0 → every slot', band('bronze', { headroomPerReplica: 0 }), after(16), true, 'borrow'],
    ['bronze alone, slot_headroom_per_replica 2 → 12 slots', band('bronze', { headroomPerReplica: 2 }), after(13), false, 'held:slots'],
  ])('%s', (_name, b, a, admit, rule) => {
    expect(bandVerdict(a, b)).toMatchObject({ admit, rule });
  });

  it.each([
    [2, 8, 1, 14],
    [2, 8, 0, 16],
    [3, 4, 2, 6],
    [2, 1, 1, 2],
  ])('borrow limit: %d replicas × %d slots, headroom %d → %d slots', (replicas, slots, h, limit) => {
    expect(borrowLimit(after(0, replicas, slots), h)).toBe(limit);
  });
});

describe('property: a band never pushes the pool past its own ceiling by its own admissions', () => {
  const cfg: AdmissionCoreConfig = {
    targetWaitingPerReplica: 4,
    kvCeiling: 0.9,
    queueTtlMs: 60_000,
    queueCapacityPerBand: 1000,
    bands: DEFAULT_BANDS as AdmissionCoreConfig['bands'],
  };

  const replicaArb = fc.record({
    cap: fc.integer({ min: 1, max: 16 }),
    runningFrac: fc.double({ min: 0, max: 1, noNaN: true }),
    waiting: fc.integer({ min: 0, max: 3 }),
    kv: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  });

  it('after every grant: queue and kv within the ceiling; slots within the share, or borrowed idle slots (no higher demand, headroom kept)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(replicaArb, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('gold', 'silver', 'bronze', 'platinum'),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 60 }),
        async (reps, name, higherLeases, attempts) => {
          const ctl = new AdmissionController(cfg, { clock: new ManualClock() });
          // Three scrapes with a queue at a steady batch: every capacity is confirmed.
          const full: ReplicaStats[] = reps.map((r, i) => ({ id: `r${i}`, running: r.cap, waiting: 1 }));
          ctl.updatePool('p', full);
          ctl.updatePool('p', full);
          ctl.updatePool('p', full);
          ctl.updatePool(
            'p',
            reps.map((r, i) => ({
              id: `r${i}`,
              running: Math.floor(r.runningFrac * r.cap),
              waiting: r.waiting,
              ...(r.kv !== undefined ? { kvUsage: r.kv } : {}),
            })),
          );
          const b = DEFAULT_BANDS.find((x) => x.name === name)!;
          const c = b.saturationCeiling;
          // Some demand from the band above (when there is one), granted or not.
          const above = name === 'platinum' ? undefined : DEFAULT_BANDS[DEFAULT_BANDS.findIndex((x) => x.name === name) - 1].name;
          const higher: Array<Promise<unknown>> = [];
          if (above)
            for (let i = 0; i < higherLeases; i++)
              higher.push(ctl.acquire({ requestId: `h${i}`, band: above, tenant: 'h', model: '', candidatePools: ['p'], estimatedTokens: 1 }));
          for (let i = 0; i < attempts; i++) {
            let granted = false;
            void ctl
              .acquire({ requestId: `b${i}`, band: name, tenant: 't', model: '', candidatePools: ['p'], estimatedTokens: 1 })
              .then((r) => (granted = r.kind === 'granted'));
            await Promise.resolve();
            await Promise.resolve();
            if (!granted) break;
            const p = ctl.saturationParts('p')!;
            const eps = 1e-9;
            expect(p.queue).toBeLessThanOrEqual(c + eps);
            expect(p.kv).toBeLessThanOrEqual(c + eps);
            if (name !== 'platinum') {
              const higherDemand = ctl.queued() > 0 || higherLeases > 0;
              const withinShare = p.slots <= c + eps;
              const borrowed = !higherDemand && p.used <= borrowLimit(p, 1) + eps;
              expect(withinShare || borrowed).toBe(true);
            }
          }
          ctl.close();
          await Promise.all(higher);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the controller applies the slot rule and explains each decision', () => {
  const cfg: AdmissionCoreConfig = {
    targetWaitingPerReplica: 4,
    kvCeiling: 0.9,
    queueTtlMs: 60_000,
    queueCapacityPerBand: 1000,
    bands: DEFAULT_BANDS as AdmissionCoreConfig['bands'],
  };
  const req = (band: string, i: number) => ({ requestId: `${band}-${i}`, band, tenant: 't', model: 'm', candidatePools: ['p'], estimatedTokens: 1 });
  /** Two replicas of 8 slots, capacity confirmed (a lasting queue at 8: three scrapes), then idle. */
  function pool(ctl: AdmissionController) {
    const full = [
      { id: 'e0', running: 8, waiting: 2 },
      { id: 'e1', running: 8, waiting: 2 },
    ];
    ctl.updatePool('p', full, 'm');
    ctl.updatePool('p', full, 'm');
    ctl.updatePool('p', full, 'm');
    ctl.updatePool(
      'p',
      [
        { id: 'e0', running: 0, waiting: 0 },
        { id: 'e1', running: 0, waiting: 0 },
      ],
      'm',
    );
  }

  it('bronze alone borrows 14 of 16 slots; platinum then finds a free slot at once; bronze waits for its share while platinum runs', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const ctl = new AdmissionController(cfg, {
      clock: new ManualClock(),
      log: { debug: (o) => lines.push(o as Record<string, unknown>), isLevelEnabled: () => true },
    });
    pool(ctl);
    const bronze = [];
    for (let i = 0; i < 20; i++) bronze.push(ctl.acquire(req('bronze', i)));
    await Promise.resolve();
    expect(ctl.outstandingLeases()).toBe(14);
    expect(ctl.queued()).toBe(6);
    expect(ctl.saturationParts('p', 'm')).toMatchObject({ used: 14, capacity: 16, slots: 14 / 16, queue: 0 });
    const plat = await ctl.acquire(req('platinum', 0));
    expect(plat.kind).toBe('granted');
    // a bronze lease ends while platinum runs: 14 of 16 in use is above bronze's share (0.3), so the slot stays free
    const first = (await bronze[0]) as Extract<Awaited<(typeof bronze)[0]>, { kind: 'granted' }>;
    first.lease.release();
    expect(ctl.outstandingLeases()).toBe(14);
    expect(ctl.queued()).toBe(6);
    // platinum done: bronze borrows again up to the headroom
    if (plat.kind === 'granted') plat.lease.release();
    expect(ctl.outstandingLeases()).toBe(14);
    expect(ctl.queued()).toBe(5);

    const grant = lines.find((l) => l.band === 'bronze' && l.decision === 'admit');
    expect(grant).toMatchObject({
      pool: 'p',
      model: 'm',
      rule: 'share',
      ceiling: 0.3,
      saturation: { total: expect.any(Number), slots: expect.any(Number), queue: 0, kv: 0 },
      slotCapacity: 16,
    });
    expect(lines.find((l) => l.rule === 'borrow')).toMatchObject({ band: 'bronze', slotLimit: 14, higherDemand: false });
    expect(lines.find((l) => l.decision === 'hold')).toMatchObject({ band: 'bronze', rule: 'held:slots', slotsUsed: 15, slotLimit: 14 });
    expect(lines.find((l) => l.band === 'platinum')).toMatchObject({ decision: 'admit', rule: 'top', slotLimit: null });
    ctl.close();
  });

  it('formats nothing when debug is off', async () => {
    const debug = jest.fn();
    const ctl = new AdmissionController(cfg, { clock: new ManualClock(), log: { debug, isLevelEnabled: () => false } });
    pool(ctl);
    await ctl.acquire(req('bronze', 0));
    expect(debug).not.toHaveBeenCalled();
    ctl.close();
  });
});

import { ManualClock } from './clock';
import { DEFAULT_BANDS, type AdmissionCoreConfig } from './config';
import { AdmissionController } from './controller';

const cfg: AdmissionCoreConfig = {
  targetWaitingPerReplica: 4,
  kvCeiling: 0.9,
  queueTtlMs: 60_000,
  queueCapacityPerBand: 1000,
  bands: DEFAULT_BANDS as AdmissionCoreConfig['bands'],
};
const req = (band: string, i: number) => ({ requestId: `${band}-${i}`, band, tenant: 't', model: 'm', candidatePools: ['p'], estimatedTokens: 1 });

/** Two replicas of 8 slots with confirmed capacity, idle: bronze alone may borrow 16 − 2 = 14. */
function setup() {
  const clock = new ManualClock();
  const lines: Array<Record<string, unknown>> = [];
  const ctl = new AdmissionController(cfg, { clock, log: { debug: (o) => lines.push(o as Record<string, unknown>) } });
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
  return { clock, ctl, lines };
}

describe('router credits (admission without a round trip while far below every ceiling)', () => {
  it('counts a declared --max-num-seqs as confirmed capacity from the first feed, so an idle pool grants a full credit', () => {
    const clock = new ManualClock();
    const learned = new AdmissionController(cfg, { clock });
    learned.updatePool(
      'p',
      [
        { id: 'e0', running: 0, waiting: 0 },
        { id: 'e1', running: 0, waiting: 0 },
      ],
      'm',
    );
    // capacity unknown: each replica counts as one slot, so requests beyond it count as queued and the credit is tiny
    expect(learned.credit('A', 'm', 'p', 0, 1000).limit).toBeLessThanOrEqual(3);
    const declared = new AdmissionController(cfg, { clock });
    declared.updatePool(
      'p',
      [
        { id: 'e0', running: 0, waiting: 0, declaredCapacity: 64 },
        { id: 'e1', running: 0, waiting: 0, declaredCapacity: 64 },
      ],
      'm',
    );
    // 128 slots, idle, no higher demand: bronze may borrow all but one slot per replica (126) → half is the credit
    expect(declared.credit('A', 'm', 'p', 0, 1000).limit).toBe(63);
    // a declared capacity still bounds: a full batch gives no credit
    declared.updatePool(
      'p',
      [
        { id: 'e0', running: 64, waiting: 0, declaredCapacity: 64 },
        { id: 'e1', running: 64, waiting: 0, declaredCapacity: 64 },
      ],
      'm',
    );
    expect(declared.credit('B', 'm', 'p', 0, 1000).limit).toBe(0);
    learned.close();
    declared.close();
  });

  it('grants half the lowest band’s headroom, split between routers as they renew', () => {
    const { ctl } = setup();
    expect(ctl.credit('A', 'm', 'p', 0, 1000).limit).toBe(7); // headroom 14 → 7
    expect(ctl.creditReserved('p', 'm')).toBe(7);
    expect(ctl.credit('B', 'm', 'p', 0, 1000).limit).toBe(3); // 14 − 7 = 7 → 3
    expect(ctl.credit('A', 'm', 'p', 0, 1000).limit).toBe(5); // own credit set aside: 14 − 3 = 11 → 5
    expect(ctl.credit('B', 'm', 'p', 0, 1000).limit).toBe(4); // 14 − 5 = 9 → 4
    expect(ctl.creditReserved('p', 'm')).toBe(9);
  });

  it('counts credits as outstanding: the exact path sees them, so the global bound holds', async () => {
    const { ctl } = setup();
    expect(ctl.credit('A', 'm', 'p', 0, 1000).limit).toBe(7);
    const got = [];
    for (let i = 0; i < 10; i++) got.push(ctl.acquire(req('bronze', i)));
    await Promise.resolve();
    expect(ctl.outstandingLeases()).toBe(7); // 14 − 7 reserved by the credit
    expect(ctl.queued()).toBe(3);
    ctl.close();
  });

  it('is 0 while anything is queued, and shrinks to 0 near the lowest ceiling', async () => {
    const { ctl } = setup();
    for (let i = 0; i < 13; i++) await ctl.acquire(req('bronze', i));
    expect(ctl.credit('A', 'm', 'p', 0, 1000).limit).toBe(0); // headroom 1 → 0
    void ctl.acquire(req('bronze', 13));
    void ctl.acquire(req('bronze', 14));
    await Promise.resolve();
    expect(ctl.queued()).toBe(1);
    expect(ctl.credit('A', 'm', 'p', 0, 1000).limit).toBe(0);
    ctl.close();
  });

  it('keeps what a router has in use counted above its new limit, and adopts it after a failover', () => {
    const { ctl } = setup();
    // a new leader hears of 9 requests admitted on credit: they count (the limit includes them, so
    // the router admits no more on its own until it is under 7 again)
    expect(ctl.credit('A', 'm', 'p', 9, 1000).limit).toBe(7);
    expect(ctl.creditReserved('p', 'm')).toBe(9);
    expect(ctl.saturationParts('p', 'm')).toMatchObject({ used: 9 });
  });

  it('expires a credit that is not renewed, and drops a silent router’s credits', () => {
    const { clock, ctl } = setup();
    ctl.credit('A', 'm', 'p', 2, 1000);
    ctl.credit('B', 'm', 'p', 0, 5000);
    expect(ctl.creditReserved('p', 'm')).toBeGreaterThan(7);
    clock.advance(1001);
    const b = ctl.creditReserved('p', 'm');
    expect(b).toBe(3); // only B's is left
    ctl.dropCredits('B');
    expect(ctl.creditReserved('p', 'm')).toBe(0);
  });

  it('explains each credit in a debug line', () => {
    const { ctl, lines } = setup();
    ctl.credit('A', 'm', 'p', 1, 1000);
    expect(lines.find((l) => l.routerId === 'A')).toMatchObject({
      pool: 'p',
      model: 'm',
      limit: 7,
      inUse: 1,
      lowestBandHeadroom: 14,
      queued: 0,
      saturation: expect.objectContaining({ slots: expect.any(Number) }),
    });
  });
});

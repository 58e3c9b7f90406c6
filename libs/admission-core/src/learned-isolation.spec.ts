import { ManualClock } from './clock';
import { DEFAULT_BANDS, type AdmissionCoreConfig } from './config';
import { AdmissionController } from './controller';
import type { Lease } from './types';

/**
 * The slot-limited isolation shape (apps/admission/test/learned-slot-isolation.spec.ts) as a
 * deterministic model in virtual time, so it holds on any machine: three FIFO engines of 6 slots
 * that declare nothing, a closed-loop bronze flood of 360, platinum every 150 ms, each engine scraped
 * every 200 ms. Scrapes are noisy as a real engine's are: a full engine's batch reads one short in
 * some scrapes. The router sends each granted request to the replica with the fewest in flight.
 */
const cfg: AdmissionCoreConfig = {
  targetWaitingPerReplica: 4,
  kvCeiling: 0.9,
  queueTtlMs: 600_000,
  queueCapacityPerBand: 10_000,
  bands: DEFAULT_BANDS as AdmissionCoreConfig['bands'],
};

interface Job {
  band: string;
  arrivedAt: number;
  durMs: number;
  lease: Lease;
  endAt?: number;
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

async function simulate(o: { flicker: number; measureMs: number }) {
  const clock = new ManualClock(0);
  const ctl = new AdmissionController(cfg, { clock });
  const SLOTS = 6;
  const PREFILL_MS = 50;
  const STEP = 10;
  const engines = [0, 1, 2].map(() => ({ running: [] as Job[], queue: [] as Job[], scrapedAt: 0, stats: { running: 0, waiting: 0 } }));
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const ttfts: number[] = [];
  let measuring = false;
  let bronzeDone = 0;
  let rejected = 0;

  const dispatch = (j: Job) => {
    const e = engines.reduce((a, b) => (a.running.length + a.queue.length <= b.running.length + b.queue.length ? a : b));
    e.queue.push(j);
  };
  const bronzeClient = async () => {
    const r = await ctl.acquire({
      requestId: 'b',
      band: 'bronze',
      tenant: `batch-${Math.floor(rand() * 3)}`,
      model: 'm',
      candidatePools: ['p'],
      estimatedTokens: 50,
    });
    if (r.kind !== 'granted') {
      if (!ctl.isClosed) rejected++;
      return;
    }
    dispatch({ band: 'bronze', arrivedAt: clock.now(), durMs: 320 + Math.floor(rand() * 640), lease: r.lease });
  };
  const platinum = async () => {
    const at = clock.now();
    const r = await ctl.acquire({ requestId: 'p', band: 'platinum', tenant: 'interactive', model: 'm', candidatePools: ['p'], estimatedTokens: 50 });
    if (r.kind !== 'granted') {
      if (!ctl.isClosed) rejected++;
      return;
    }
    dispatch({ band: 'platinum', arrivedAt: at, durMs: PREFILL_MS + 20, lease: r.lease });
  };

  ctl.updatePool(
    'p',
    engines.map((_e, i) => ({ id: `e${i}`, running: 0, waiting: 0 })),
    'm',
  );
  const flood = Array.from({ length: 360 }, () => void bronzeClient());
  void flood;
  let nextPlatinum = 4000;
  const end = 4000 + o.measureMs;
  for (let t = 0; t < end; t += STEP) {
    clock.advance(STEP);
    const now = clock.now();
    for (const e of engines) {
      for (const j of e.running.filter((x) => x.endAt! <= now)) {
        e.running.splice(e.running.indexOf(j), 1);
        j.lease.release();
        if (j.band === 'bronze') {
          bronzeDone++;
          void bronzeClient();
        }
      }
      while (e.running.length < SLOTS && e.queue.length > 0) {
        const j = e.queue.shift()!;
        j.endAt = now + j.durMs;
        e.running.push(j);
        if (j.band === 'platinum' && measuring) ttfts.push(now + PREFILL_MS - j.arrivedAt);
      }
    }
    // Each engine is scraped every 200 ms (staggered); every scrape feeds the whole pool.
    engines.forEach((e, i) => {
      if ((now + i * 70) % 200 !== 0) return;
      const waiting = e.queue.length;
      const short = waiting > 0 && e.running.length > 0 && rand() < o.flicker ? 1 : 0;
      e.stats = { running: e.running.length - short, waiting };
      e.scrapedAt = now;
      ctl.updatePool(
        'p',
        engines.map((x, k) => ({ id: `e${k}`, ...x.stats, sampledAt: x.scrapedAt })),
        'm',
      );
    });
    if (now >= 4000) measuring = true;
    if (now >= nextPlatinum && now < end - 1000) {
      nextPlatinum += 150;
      void platinum();
    }
    await flush();
  }
  const slots = ctl.replicaSlots().map((r) => r.capacity);
  const confirmed = ctl.replicaSlots().every((r) => r.confirmed);
  ctl.close();
  const sorted = [...ttfts].sort((a, b) => a - b);
  return { p90: sorted[Math.ceil(0.9 * sorted.length) - 1], samples: sorted.length, slots, confirmed, bronzeDone, rejected, idle: PREFILL_MS };
}

describe('platinum on learned slots (deterministic model of the slot-limited isolation shape)', () => {
  it('learns 6 slots per engine through noisy scrapes and keeps platinum TTFT p90 within 1.5x idle under a bronze flood of 20x the slots', async () => {
    const r = await simulate({ flicker: 0.3, measureMs: 10_000 });
    expect(r.rejected).toBe(0);
    expect(r.slots).toEqual([6, 6, 6]);
    expect(r.confirmed).toBe(true);
    expect(r.samples).toBeGreaterThan(50);
    expect(r.bronzeDone).toBeGreaterThan(100); // bronze keeps completing
    expect(r.p90).toBeLessThanOrEqual(1.5 * r.idle);
  }, 60_000);
});

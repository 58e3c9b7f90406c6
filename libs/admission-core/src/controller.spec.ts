import { ManualClock } from './clock';
import { AdmissionController, type ReplicaStats } from './controller';
import type { AdmissionCoreConfig, BandConfig } from './config';
import { DEFAULT_BANDS } from './config';
import type { AdmissionRecorder } from './recorder';
import type { AcquireResult, AdmissionRequest } from './types';

const flush = () => new Promise((r) => setImmediate(r));

function setup(over: Partial<AdmissionCoreConfig> = {}, bands: BandConfig[] = DEFAULT_BANDS as BandConfig[]) {
  const clock = new ManualClock();
  const events: string[] = [];
  const rec: AdmissionRecorder = {
    queueDepth: () => undefined,
    waitSeconds: () => undefined,
    rejected: (band, reason) => events.push(`${band}:${reason}`),
    poolSaturation: () => undefined,
  };
  const cfg: AdmissionCoreConfig = {
    targetWaitingPerReplica: 4,
    kvCeiling: 0.9,
    queueTtlMs: 10_000,
    queueCapacityPerBand: 100,
    bands,
    ...over,
  };
  const ctl = new AdmissionController(cfg, { clock, recorder: rec });
  return { clock, ctl, events };
}

let n = 0;
function req(band: string, tenant = 't', over: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return { requestId: `r${++n}`, band, tenant, model: 'm', candidatePools: ['a'], estimatedTokens: 100, ...over };
}

/** One replica with batch capacity `cap` already learned, otherwise idle. */
function replica(id: string, cap: number, over: Partial<ReplicaStats> = {}): ReplicaStats {
  return { id, waiting: 0, running: cap, ...over };
}

/** Learns capacity `cap` for pool `a`, then reports it idle so only leases count. */
function learn(ctl: AdmissionController, pool: string, cap: number) {
  ctl.updatePool(pool, [replica(`${pool}-0`, cap)]);
  ctl.updatePool(pool, [replica(`${pool}-0`, 0)]);
}

function track(p: Promise<AcquireResult>) {
  const box: { r?: AcquireResult } = {};
  void p.then((r) => (box.r = r));
  return box;
}

describe('AdmissionController', () => {
  it('admits while the pool is healthy and holds a band once its ceiling would be exceeded', async () => {
    const { ctl } = setup();
    learn(ctl, 'a', 4);
    // bronze ceiling 0.3 with target 4: at most capacity + 1 outstanding (queued 1 → 0.25).
    const got: AcquireResult[] = [];
    for (let i = 0; i < 5; i++) got.push(await ctl.acquire(req('bronze')));
    expect(got.every((g) => g.kind === 'granted')).toBe(true);
    const sixth = track(ctl.acquire(req('bronze')));
    await flush();
    expect(sixth.r).toBeUndefined();
    // platinum (1.0) still flows: up to capacity + 4.
    for (let i = 0; i < 3; i++) expect((await ctl.acquire(req('platinum'))).kind).toBe('granted');
    const held = track(ctl.acquire(req('platinum')));
    await flush();
    expect(held.r).toBeUndefined();
    // a release wakes the highest band first
    if (got[0].kind === 'granted') got[0].lease.release();
    await flush();
    expect(held.r?.kind).toBe('granted');
    expect(sixth.r).toBeUndefined();
  });

  it('counts outstanding leases so a simultaneous burst cannot pass en masse (stale scrape says idle)', async () => {
    const { ctl } = setup();
    learn(ctl, 'a', 2);
    const burst = Array.from({ length: 50 }, () => track(ctl.acquire(req('bronze'))));
    await flush();
    expect(burst.filter((b) => b.r?.kind === 'granted')).toHaveLength(3);
    expect(ctl.queued()).toBe(47);
  });

  it('learns batch capacity as the high-water mark of running', async () => {
    const { ctl } = setup();
    ctl.updatePool('a', [replica('a-0', 0)]);
    // capacity unknown (1): bronze gets capacity + 1 = 2
    const first = [await ctl.acquire(req('bronze')), await ctl.acquire(req('bronze'))];
    expect(first.map((r) => r.kind)).toEqual(['granted', 'granted']);
    const third = track(ctl.acquire(req('bronze')));
    await flush();
    expect(third.r).toBeUndefined();
    // the engine reports 6 running: capacity learned, the waiter proceeds
    ctl.updatePool('a', [replica('a-0', 6)]);
    await flush();
    expect(third.r?.kind).toBe('granted');
  });

  it('probes capacity by doubling until the engine first queues, then holds at the high-water mark', async () => {
    const { ctl } = setup();
    // running 4 and no queue: capacity could be more, probe up to 8 (bronze: capacity + 1 leases)
    ctl.updatePool('a', [replica('a-0', 4)]);
    expect(ctl.saturation('a')).toBe(0);
    const got: AcquireResult[] = [];
    for (let i = 0; i < 9; i++) got.push(await ctl.acquire(req('bronze')));
    expect(got.every((g) => g.kind === 'granted')).toBe(true);
    const tenth = track(ctl.acquire(req('bronze')));
    await flush();
    expect(tenth.r).toBeUndefined();
    // one scrape with a queue is not proof of the slot count, but it ends the probe: capacity 6, not 12
    ctl.updatePool('a', [replica('a-0', 6, { waiting: 3 })]);
    expect(ctl.saturationParts('a')).toMatchObject({ capacity: 0, queue: 0.75 }); // max(3, 9 − 6) ÷ 4
    ctl.updatePool('a', [replica('a-0', 2, { waiting: 0 })]);
    expect(ctl.saturation('a')).toBe(0.75); // max(0, 9 − 6) ÷ 4: the high-water mark holds
    // a second scrape with a queue at 6 is still not proof (a starved engine shows one at any batch) ...
    ctl.updatePool('a', [replica('a-0', 6, { waiting: 2 })]);
    expect(ctl.saturationParts('a')).toMatchObject({ capacity: 0 });
    // ... a third one at the window's largest batch is: capacity confirmed at 6
    ctl.updatePool('a', [replica('a-0', 6, { waiting: 2 })]);
    // confirmed: every slot is in use (slots 1) and max(2, 9 − 6) ÷ 4 queued
    expect(ctl.saturationParts('a')).toMatchObject({ slots: 1, queue: 0.75, capacity: 6, used: 6 });
    expect(ctl.saturation('a')).toBe(1);
    ctl.updatePool('a', [replica('a-0', 2, { waiting: 0 })]);
    expect(ctl.saturationParts('a')).toMatchObject({ slots: 1, queue: 0.75 }); // still 9 outstanding − 6
    await flush();
    expect(tenth.r).toBeUndefined();
  });

  describe('slots learned for an endpoint that declares none', () => {
    it('learns them from a full engine whose batch reads one short in some scrapes', () => {
      const { ctl } = setup();
      // 6 slots, a queue throughout, scrapes catching the batch at 6, 5, 6, 5, 6, 5, 6
      for (const running of [6, 5, 6, 5, 6, 5, 6]) ctl.updatePool('a', [replica('a-0', running, { waiting: 3 })]);
      expect(ctl.saturationParts('a')).toMatchObject({ capacity: 6, confirmed: 1 });
      expect(ctl.replicaSlots()).toEqual([{ pool: 'a', model: '', id: 'a-0', learned: 6, capacity: 6, confirmed: true }]);
    });

    it('counts one scrape once however often the pool is fed with it', () => {
      const { ctl } = setup();
      // Three replicas scraped at different times feed the pool three times per scrape of each.
      for (let i = 0; i < 3; i++) ctl.updatePool('a', [replica('a-0', 6, { waiting: 3, sampledAt: 1000 })]);
      expect(ctl.saturationParts('a')).toMatchObject({ capacity: 0 });
      ctl.updatePool('a', [replica('a-0', 6, { waiting: 3, sampledAt: 2000 })]);
      ctl.updatePool('a', [replica('a-0', 6, { waiting: 3, sampledAt: 3000 })]);
      expect(ctl.saturationParts('a')).toMatchObject({ capacity: 6 });
    });

    it('does not over-commit a lower band to an engine that has shown a queue before its slots are learned', async () => {
      const { ctl } = setup();
      ctl.updatePool('a', [replica('a-0', 6, { waiting: 1 })]);
      const got: AcquireResult[] = [];
      for (let i = 0; i < 20; i++) {
        const r = track(ctl.acquire(req('bronze')));
        await flush();
        if (!r.r) break;
        got.push(r.r);
      }
      // bronze (ceiling 0.3 × target 4): what it runs (6) and one more queued at the engine, not 2 × 6 + 1
      expect(got).toHaveLength(7);
    });

    it('relearns a smaller engine (restarted with fewer slots) and a larger one at once', () => {
      const { ctl } = setup();
      for (let i = 0; i < 3; i++) ctl.updatePool('a', [replica('a-0', 6, { waiting: 3 })]);
      expect(ctl.saturationParts('a')).toMatchObject({ capacity: 6 });
      // 4 running, 3 waiting in every scrape: 7 requests held, only 4 run
      for (let i = 0; i < 10; i++) ctl.updatePool('a', [replica('a-0', 4, { waiting: 3 })]);
      expect(ctl.saturationParts('a')).toMatchObject({ capacity: 4 });
      ctl.updatePool('a', [replica('a-0', 8)]);
      expect(ctl.saturationParts('a')).toMatchObject({ capacity: 8 });
    });

    it('takes an unlearned replica to be like its pool peers until its own metrics show otherwise', () => {
      const { ctl } = setup();
      const feed = (a0: Partial<ReplicaStats>, a1: Partial<ReplicaStats>) => ctl.updatePool('a', [replica('a-0', 0, a0), replica('a-1', 0, a1)]);
      // a-0 fills and queues; a-1 is kept below a full batch (admission spreads the flood) and never queues
      for (let i = 0; i < 3; i++) feed({ running: 6, waiting: 3 }, { running: 4 });
      expect(ctl.saturationParts('a')).toMatchObject({ capacity: 12, confirmed: 2 });
      expect(ctl.replicaSlots().map((r) => [r.id, r.learned, r.capacity, r.fromPeers ?? false])).toEqual([
        ['a-0', 6, 6, false],
        ['a-1', undefined, 6, true],
      ]);
      // a-1 turns out smaller (4 slots): given its peers' share it queues at 4, which learns its own value
      for (let i = 0; i < 3; i++) feed({ running: 6 }, { running: 4, waiting: 2 });
      expect(ctl.replicaSlots().map((r) => [r.id, r.capacity, r.fromPeers ?? false])).toEqual([
        ['a-0', 6, false],
        ['a-1', 4, false],
      ]);
    });

    it('lets a declared max_num_seqs win over anything learned', () => {
      const { ctl } = setup();
      for (let i = 0; i < 5; i++) ctl.updatePool('a', [replica('a-0', 4, { waiting: 3, declaredCapacity: 16 })]);
      expect(ctl.saturationParts('a')).toMatchObject({ capacity: 16 });
      expect(ctl.replicaSlots()).toEqual([{ pool: 'a', model: '', id: 'a-0', declared: 16, capacity: 16, confirmed: true }]);
    });
  });

  it('treats KV pressure as saturation', async () => {
    const { ctl } = setup();
    ctl.updatePool('a', [replica('a-0', 8, { running: 0, kvUsage: 0.85 })]);
    const gold = track(ctl.acquire(req('gold')));
    const plat = track(ctl.acquire(req('platinum')));
    await flush();
    expect(plat.r?.kind).toBe('granted'); // 0.85/0.9 = 0.94 ≤ 1
    expect(gold.r).toBeUndefined(); // 0.94 > 0.85
  });

  it('lets a band with a ceiling above 1 through even when every pool is saturated or unknown', async () => {
    const bands = [...DEFAULT_BANDS, { name: 'probe', priority: 1000, saturationCeiling: 1000 }];
    const { ctl } = setup({}, bands);
    ctl.updatePool('a', [replica('a-0', 1, { waiting: 100 })]);
    expect((await ctl.acquire(req('probe'))).kind).toBe('granted');
    expect((await ctl.acquire(req('probe', 't', { candidatePools: ['unknown'] }))).kind).toBe('granted');
  });

  it('rejects with ttl once queue_ttl passes, using one timer and no polling', async () => {
    const { ctl, clock, events } = setup({ queueTtlMs: 5000 });
    ctl.updatePool('a', [replica('a-0', 1, { waiting: 50 })]);
    const a = track(ctl.acquire(req('gold')));
    clock.advance(1000);
    const b = track(ctl.acquire(req('gold')));
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(4000);
    await flush();
    expect(a.r).toMatchObject({ kind: 'rejected', reason: 'ttl', queuedMs: 5000 });
    expect(b.r).toBeUndefined();
    clock.advance(1000);
    await flush();
    expect(b.r).toMatchObject({ kind: 'rejected', reason: 'ttl', queuedMs: 5000 });
    expect(clock.pendingTimers()).toBe(0);
    expect(events).toEqual(['gold:ttl', 'gold:ttl']);
  });

  it('honours a request deadline earlier than the TTL', async () => {
    const { ctl, clock } = setup({ queueTtlMs: 60_000 });
    ctl.updatePool('a', [replica('a-0', 1, { waiting: 50 })]);
    const a = track(ctl.acquire(req('gold', 't', { deadlineMs: clock.now() + 200 })));
    clock.advance(200);
    await flush();
    expect(a.r).toMatchObject({ kind: 'rejected', reason: 'ttl' });
  });

  it('rejects full at once with Retry-After when a band queue is at capacity', async () => {
    const { ctl, events } = setup({ queueCapacityPerBand: 2 });
    ctl.updatePool('a', [replica('a-0', 1, { waiting: 50 })]);
    track(ctl.acquire(req('silver')));
    track(ctl.acquire(req('silver')));
    const third = await ctl.acquire(req('silver'));
    expect(third).toMatchObject({ kind: 'rejected', reason: 'full', queuedMs: 0 });
    expect(third.kind === 'rejected' && third.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // another band has its own bound
    const gold = track(ctl.acquire(req('gold')));
    await flush();
    expect(gold.r).toBeUndefined();
    expect(events).toEqual(['silver:full']);
  });

  it('displaces the newest request of the lowest band to make room for a higher band', async () => {
    const { ctl, events } = setup({ totalQueueCapacity: 4 });
    ctl.updatePool('a', [replica('a-0', 1, { waiting: 50 })]);
    const s1 = track(ctl.acquire(req('silver')));
    const b1 = track(ctl.acquire(req('bronze')));
    const b2 = track(ctl.acquire(req('bronze')));
    const b3 = track(ctl.acquire(req('bronze')));
    const g1 = track(ctl.acquire(req('gold')));
    const g2 = track(ctl.acquire(req('gold')));
    await flush();
    expect(b3.r).toMatchObject({ kind: 'rejected', reason: 'displaced' });
    expect(b2.r).toMatchObject({ kind: 'rejected', reason: 'displaced' });
    expect(b1.r).toBeUndefined();
    expect(s1.r).toBeUndefined();
    expect(g1.r).toBeUndefined();
    expect(g2.r).toBeUndefined();
    // the lowest band cannot displace anyone: it is turned away itself
    const b4 = await ctl.acquire(req('bronze'));
    expect(b4).toMatchObject({ kind: 'rejected', reason: 'full' });
    // gold displaces bronze before silver
    track(ctl.acquire(req('gold')));
    await flush();
    expect(b1.r).toMatchObject({ kind: 'rejected', reason: 'displaced' });
    expect(s1.r).toBeUndefined();
    expect(events).toEqual(['bronze:displaced', 'bronze:displaced', 'bronze:full', 'bronze:displaced']);
  });

  it('removes a queued request at once when its client goes away', async () => {
    const { ctl, events } = setup();
    ctl.updatePool('a', [replica('a-0', 1, { waiting: 50 })]);
    const ac = new AbortController();
    const p = track(ctl.acquire(req('gold'), ac.signal));
    await flush();
    expect(ctl.queued()).toBe(1);
    ac.abort();
    await flush();
    expect(p.r).toMatchObject({ kind: 'rejected', reason: 'client_gone' });
    expect(ctl.queued()).toBe(0);
    expect(events).toEqual(['gold:client_gone']);
    const gone = await ctl.acquire(req('gold'), ac.signal);
    expect(gone).toMatchObject({ kind: 'rejected', reason: 'client_gone' });
  });

  /** Queues `flood` requests for A and `few` for B, then releases one slot at a time. */
  async function share(fairness: 'round-robin' | 'tokens', tokensA: number, tokensB: number, grants: number) {
    const bands: BandConfig[] = [{ name: 'batch', priority: 1, saturationCeiling: 0.3, fairness }];
    const { ctl } = setup({}, bands);
    learn(ctl, 'a', 1);
    const order: string[] = [];
    const leases: Array<() => void> = [];
    const fill = [await ctl.acquire(req('batch', 'x')), await ctl.acquire(req('batch', 'x'))];
    for (const f of fill) if (f.kind === 'granted') leases.push(() => f.lease.release());
    const all: Array<Promise<void>> = [];
    const push = (tenant: string, tokens: number) =>
      all.push(
        ctl.acquire(req('batch', tenant, { estimatedTokens: tokens })).then((r) => {
          if (r.kind !== 'granted') return;
          order.push(tenant);
          leases.push(() => r.lease.release());
        }),
      );
    for (let i = 0; i < 60; i++) push('A', tokensA);
    for (let i = 0; i < 20; i++) push('B', tokensB);
    for (let i = 0; i < grants; i++) {
      leases.shift()?.();
      await flush();
    }
    ctl.close();
    await Promise.all(all);
    return order.slice(0, grants);
  }

  it('alternates tenants round-robin inside a band: a flooding tenant cannot take the band', async () => {
    const order = await share('round-robin', 100, 100, 20);
    expect(order.filter((t) => t === 'B')).toHaveLength(10);
    expect(order.slice(0, 6)).toEqual(['A', 'B', 'A', 'B', 'A', 'B']);
  });

  it.each([
    ['round-robin', 10],
    ['tokens', 19],
  ] as const)('with %s fairness and 30k vs 200-token prompts the small tenant gets %i of 20 turns', async (mode, bTurns) => {
    const order = await share(mode, 30_000, 200, 20);
    expect(order.filter((t) => t === 'B')).toHaveLength(bTurns);
  });

  it('spills over to the next pool that is not saturated, and back once the first recovers', async () => {
    const { ctl } = setup();
    learn(ctl, 'h100', 2);
    learn(ctl, 'a100', 2);
    const pools: string[] = [];
    const leases: AcquireResult[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await ctl.acquire(req('bronze', 't', { candidatePools: ['h100', 'a100'] }));
      leases.push(r);
      pools.push(r.kind === 'granted' ? r.pool : r.reason);
    }
    expect(pools).toEqual(['h100', 'h100', 'h100', 'a100', 'a100', 'a100']);
    const queued = track(ctl.acquire(req('bronze', 't', { candidatePools: ['h100', 'a100'] })));
    await flush();
    expect(queued.r).toBeUndefined();
    const first = leases[0];
    if (first.kind === 'granted') first.lease.release();
    await flush();
    expect(queued.r).toMatchObject({ kind: 'granted', pool: 'h100' });
  });

  it('resolves an unknown band to the lowest one and releases leases idempotently', async () => {
    const { ctl } = setup();
    learn(ctl, 'a', 1);
    expect(ctl.resolveBand('diamond')).toBe('bronze');
    const r = await ctl.acquire(req('bronze'));
    expect(r.kind).toBe('granted');
    if (r.kind !== 'granted') return;
    expect(ctl.outstandingLeases()).toBe(1);
    r.lease.release();
    r.lease.release();
    expect(ctl.release(r.lease.id)).toBe(false);
    expect(ctl.outstandingLeases()).toBe(0);
    expect(ctl.snapshot().outstanding).toEqual({ a: 0 });
  });

  it('holds requests for a pool with no replicas until one appears', async () => {
    const { ctl } = setup();
    const p = track(ctl.acquire(req('platinum', 't', { candidatePools: ['new'] })));
    await flush();
    expect(p.r).toBeUndefined();
    ctl.updatePool('new', [replica('n-0', 0)]);
    await flush();
    expect(p.r).toMatchObject({ kind: 'granted', pool: 'new' });
  });

  it('rejects an invalid config', () => {
    expect(() =>
      setup({}, [
        { name: 'x', priority: 1, saturationCeiling: 1 },
        { name: 'x', priority: 2, saturationCeiling: 1 },
      ]),
    ).toThrow(/duplicate name x/);
  });
});

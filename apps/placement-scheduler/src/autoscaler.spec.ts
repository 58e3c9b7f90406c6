import { Autoscaler, type ModelLoad } from './autoscaler';

const S = { windowMs: 10_000, upCooldownMs: 20_000, downCooldownMs: 30_000, quietPeriodMs: 60_000 };
const load = (queued: number, ready: number, live = ready, over: Partial<ModelLoad> = {}): ModelLoad => ({
  model: 'm',
  queued,
  ready,
  live,
  base: 1,
  min: 1,
  max: 4,
  target: 8,
  ...over,
});

describe('Autoscaler', () => {
  it('adds a replica while the window average of waiting per replica is above the target, saying why', () => {
    const a = new Autoscaler(S);
    const d = a.observe(load(38, 1), 0);
    expect(d).toMatchObject({ action: 'up', from: 1, to: 2, reason: 'scaling up: 38 waiting per replica over 10 s, target 8' });
    expect(d.inputs).toMatchObject({ queued: 38, ready: 1, waitingPerReplica: 38, windowAvg: 38, target: 8 });
    expect(a.desired('m', 1, 4)).toBe(2);
  });

  it('averages over the window: one spike among quiet readings does not scale', () => {
    const a = new Autoscaler(S);
    for (let t = 0; t < 9000; t += 1000) a.observe(load(0, 1), t);
    expect(a.observe(load(50, 1), 9000).action).toBe('hold');
    expect(a.desired('m', 1, 4)).toBe(1);
  });

  it('adds one at a time: not before the added replica is Ready, nor inside the up cooldown', () => {
    const a = new Autoscaler(S);
    expect(a.observe(load(40, 1), 0).to).toBe(2);
    expect(a.observe(load(40, 1, 2), 1000)).toMatchObject({ action: 'hold', reason: expect.stringMatching(/^waiting for the replica added to be ready/) });
    expect(a.observe(load(40, 2), 5000)).toMatchObject({ action: 'hold', reason: expect.stringMatching(/^up cooldown/) });
    expect(a.observe(load(40, 2), 20_000)).toMatchObject({ action: 'up', to: 3 });
  });

  it('stops at the model max', () => {
    const a = new Autoscaler(S);
    let t = 0;
    for (let ready = 1; ready < 4; ready++, t += 20_000) a.observe(load(100, ready), t);
    expect(a.desired('m', 1, 4)).toBe(4);
    expect(a.observe(load(100, 4), t)).toMatchObject({ action: 'hold', to: 4, reason: expect.stringMatching(/^at max 4/) });
  });

  it('takes one replica back after the quiet period, then the next after the down cooldown, never below the base', () => {
    const a = new Autoscaler(S);
    a.observe(load(40, 1), 0);
    a.observe(load(40, 2), 20_000);
    expect(a.desired('m', 1, 4)).toBe(3);
    // The queue drains at 25 s; quiet from then.
    let t = 25_000;
    const downs: number[] = [];
    for (; t <= 200_000; t += 1000) {
      const d = a.observe(load(t === 25_000 ? 1 : 0, 3), t);
      if (d.action === 'down') downs.push(t);
      if (d.action === 'up') throw new Error('scaled up without load');
    }
    expect(downs).toEqual([85_000, 115_000]);
    expect(a.desired('m', 1, 4)).toBe(1);
    expect(a.lastChange('m')?.reason).toMatch(/^scaling down: quiet for 90 s \(nothing waited, 0 running fits on 1\)/);
    expect(a.lastDecision('m')?.reason).toMatch(/^steady/);
  });

  it('keeps a replica while what runs would not fit on one fewer, even with nothing waiting', () => {
    const a = new Autoscaler(S);
    a.observe(load(40, 1), 0);
    // Two replicas of 4 slots each run 6: one replica (4 slots, 3.2 at the headroom) could not take them.
    for (let t = 1000; t <= 300_000; t += 1000) expect(a.observe({ ...load(0, 2), running: 6, slotsPerReplica: 4 }, t).action).toBe('hold');
    expect(a.lastDecision('m')?.reason).toMatch(/^holding 2: quiet for 0 s/);
    // Down to 3 running: it fits, and after the quiet period one goes.
    let downAt = 0;
    for (let t = 301_000; !downAt && t < 600_000; t += 1000) if (a.observe({ ...load(0, 2), running: 3, slotsPerReplica: 4 }, t).action === 'down') downAt = t;
    expect(downAt).toBe(360_000);
  });

  it('a load oscillating around the target scales up once and never flaps', () => {
    const a = new Autoscaler(S);
    const events: string[] = [];
    for (let t = 0; t < 30 * 60_000; t += 1000) {
      // Waiting swings 0..16 around the target 8 with a 40 s period on however many replicas run.
      const ready = a.desired('m', 1, 4);
      const queued = Math.round(8 + 8 * Math.sin((2 * Math.PI * t) / 40_000)) * (ready === 1 ? 1.5 : 0.9);
      const d = a.observe(load(Math.round(queued), ready), t);
      if (d.action !== 'hold') events.push(`${d.action}@${t / 1000}s`);
    }
    expect(events.length).toBeLessThanOrEqual(1);
    expect(events.every((e) => e.startsWith('up'))).toBe(true);
  });

  it('leaves a model alone below the base, and keeps a higher base (min raised by an operator)', () => {
    const a = new Autoscaler(S);
    expect(a.observe(load(0, 2, 2, { base: 2, min: 2 }), 0)).toMatchObject({ action: 'hold', to: 2, reason: expect.stringMatching(/^steady/) });
    expect(a.desired('m', 3, 4)).toBe(3);
  });
});

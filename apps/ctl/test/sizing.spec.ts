import { cheapestPlan, perReplica, planArithmetic, singleProfilePlans, type SizingProfile } from '../src/bench/sizing';
import { sizedTarget } from '../src/commands/plan';

// Two GPU classes: "big" serves 2× "small" and costs 2.5×, so small wins unless rounding makes big cheaper.
const small: SizingProfile = { profile: 'a100-tp1', gpuClass: 'a100-80g', maxConcurrencyAtSlo: 8, throughputTokPerSec: 400, outputTokens: 40, relativeCost: 1 };
const big: SizingProfile = {
  profile: 'h100-tp1',
  gpuClass: 'h100-80g',
  maxConcurrencyAtSlo: 16,
  throughputTokPerSec: 800,
  outputTokens: 40,
  relativeCost: 2.5,
};

describe('sizing from capacity profiles', () => {
  it('one replica delivers its measured tokens/s, and that over the output length in requests/s', () => {
    expect(perReplica(small, { kind: 'tokens-per-sec', value: 1 })).toBe(400);
    expect(perReplica(small, { kind: 'rps', value: 1 })).toBe(10);
    expect(perReplica({ ...small, maxConcurrencyAtSlo: 0 }, { kind: 'rps', value: 1 })).toBe(0);
  });

  it('picks the cheaper class for a load either could carry, with the arithmetic', () => {
    const p = cheapestPlan([big, small], { kind: 'rps', value: 35 })!;
    expect(p.lines).toEqual([{ profile: 'a100-tp1', gpuClass: 'a100-80g', replicas: 4, perReplica: 10, cost: 1 }]);
    expect(p).toMatchObject({ replicas: 4, capacity: 40, cost: 4 });
    expect(planArithmetic(p, { kind: 'rps', value: 35 })).toEqual(['4 × a100-tp1 (a100-80g): 4 × 10 req/s = 40 req/s, cost 4 × 1 = 4']);
  });

  it('mixes classes when that is cheaper than either alone', () => {
    // 25 req/s: 3 small cost 3, 2 big (at 1.8 each) 3.6, 1 big + 1 small (30 req/s) 2.8.
    const cheapBig = { ...big, relativeCost: 1.8 };
    const p = cheapestPlan([cheapBig, small], { kind: 'rps', value: 25 })!;
    expect(p.lines.map((l) => `${l.replicas}×${l.profile}`)).toEqual(['1×h100-tp1', '1×a100-tp1']);
    expect(p.cost).toBeCloseTo(2.8);
    expect(singleProfilePlans([cheapBig, small], { kind: 'rps', value: 25 }).map((x) => x.cost)).toEqual([3.6, 3]);
  });

  it('sizes by output tokens per second too, and has no plan without capacity', () => {
    expect(cheapestPlan([small], { kind: 'tokens-per-sec', value: 1000 })).toMatchObject({ replicas: 3, capacity: 1200 });
    expect(cheapestPlan([{ ...small, throughputTokPerSec: 0 }], { kind: 'rps', value: 5 })).toBeUndefined();
  });

  it("ctl model target --tokens-per-sec takes the plan's replicas as min, and refuses a max below it", () => {
    const target = { kind: 'tokens-per-sec', value: 1000 } as const;
    const r = { model: 'm', target, best: cheapestPlan([small, big], target)!, alternatives: [] };
    expect(r.best.replicas).toBe(3);
    expect(sizedTarget(r)).toEqual({ minReplicas: 3, maxReplicas: 3 });
    expect(sizedTarget(r, 5)).toEqual({ minReplicas: 3, maxReplicas: 5 });
    expect(() => sizedTarget(r, 2)).toThrow('--max (2) must be ≥ the 3 replicas the sizing needs');
  });
});

import { capacityToApply, FULL_WEIGHT } from '../src/bench/apply';

const big = { profile: 'big', gpuClass: 'h100-80g', maxConcurrencyAtSlo: 8, engineWaitingAtSlo: 0 };
const small = { profile: 'small', gpuClass: 'a100-80g', maxConcurrencyAtSlo: 3, engineWaitingAtSlo: 2 };

describe('what ctl capacity apply sets from stored capacity profiles', () => {
  it('weights in proportion to MaxConcurrencyAtSLO, the largest at the catalog default; target waiting from the engine queue at the SLO, at least 1', () => {
    const a = capacityToApply([big, small], ['big', 'small'])!;
    expect(a.profiles).toEqual([
      { profile: 'big', weight: FULL_WEIGHT, targetWaitingPerReplica: 1, maxConcurrencyAtSlo: 8, gpuClass: 'h100-80g' },
      { profile: 'small', weight: 38, targetWaitingPerReplica: 2, maxConcurrencyAtSlo: 3, gpuClass: 'a100-80g' },
    ]);
    // The autoscaler scales before the smallest target is passed.
    expect(a.targetWaitingPerReplica).toBe(1);
    expect(a.unmeasured).toEqual([]);
  });

  it('a weight never rounds to 0', () => {
    const a = capacityToApply(
      [
        { ...big, maxConcurrencyAtSlo: 1000 },
        { ...small, maxConcurrencyAtSlo: 1 },
      ],
      ['big', 'small'],
    )!;
    expect(a.profiles.map((p) => p.weight)).toEqual([100, 1]);
  });

  it('names catalog profiles without a measurement and stored ones the catalog lost; nothing to apply without a capacity', () => {
    const a = capacityToApply([small, { ...big, profile: 'gone' }], ['big', 'small'])!;
    expect(a.profiles.map((p) => [p.profile, p.weight])).toEqual([['small', 100]]);
    expect(a.unmeasured).toEqual(['big']);
    expect(a.notInCatalog).toEqual(['gone']);
    expect(capacityToApply([{ ...big, maxConcurrencyAtSlo: 0 }], ['big'])).toBeUndefined();
    expect(capacityToApply([], ['big'])).toBeUndefined();
  });
});

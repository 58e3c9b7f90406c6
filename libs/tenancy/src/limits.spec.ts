import fc from 'fast-check';
import { effectiveLimits, intersectAllowlists, isModelAllowed, resolveLimits, type LevelLimits, type ScopeType } from './limits';

const chain = (...levels: Array<Partial<LevelLimits> & { scopeType: ScopeType }>): LevelLimits[] =>
  levels.map((l) => ({ scopeId: l.scopeType[0] + '1', ...l }));

describe('allowlist intersection', () => {
  it.each<[string, Array<string[] | undefined>, string[] | undefined]>([
    ['all absent = every model', [undefined, undefined], undefined],
    ['one list', [['a', 'b'], undefined], ['a', 'b']],
    [
      'intersect two',
      [
        ['a', 'b', 'c'],
        ['b', 'c', 'd'],
      ],
      ['b', 'c'],
    ],
    ['a key cannot add a model its team withheld', [['a', 'x'], ['a']], ['a']],
    ['empty means none', [[], undefined], []],
    ['empty wins over a list', [['a'], []], []],
    ['disjoint = none', [['a'], ['b']], []],
    ['no levels = every model', [], undefined],
  ])('%s', (_name, lists, want) => {
    expect(intersectAllowlists(lists)).toEqual(want);
  });
});

describe('limit resolution', () => {
  it.each<[string, LevelLimits[], { rpm?: number; tpm?: number; day?: number; month?: number; models?: string[] }]>([
    ['nothing set = unlimited', chain({ scopeType: 'key' }, { scopeType: 'org' }), {}],
    ['org limit applies to the key', chain({ scopeType: 'key' }, { scopeType: 'org', rpm: 10 }), { rpm: 10 }],
    ['a key cannot raise the org limit', chain({ scopeType: 'key', rpm: 100 }, { scopeType: 'org', rpm: 10 }), { rpm: 10 }],
    ['a key can lower it', chain({ scopeType: 'key', rpm: 5 }, { scopeType: 'org', rpm: 10 }), { rpm: 5 }],
    ['tpm and rpm from different levels', chain({ scopeType: 'project', tpm: 1000 }, { scopeType: 'team', rpm: 60 }), { rpm: 60, tpm: 1000 }],
    [
      'budgets per period',
      chain(
        { scopeType: 'key', budgetMicros: 5, budgetPeriod: 'day' },
        { scopeType: 'org', budgetMicros: 100, budgetPeriod: 'month' },
        { scopeType: 'team', budgetMicros: 7, budgetPeriod: 'day' },
      ),
      { day: 5, month: 100 },
    ],
    ['zero is a limit, not absence', chain({ scopeType: 'key', rpm: 0 }), { rpm: 0 }],
    ['allowlists intersect', chain({ scopeType: 'key', allowedModels: ['a', 'b'] }, { scopeType: 'org', allowedModels: ['b'] }), { models: ['b'] }],
  ])('%s', (_name, levels, want) => {
    const r = resolveLimits(levels);
    const e = effectiveLimits(r);
    expect(e.rpm).toBe(want.rpm);
    expect(e.tpm).toBe(want.tpm);
    expect(e.budgetMicrosPerDay).toBe(want.day);
    expect(e.budgetMicrosPerMonth).toBe(want.month);
    expect(r.allowedModels).toEqual(want.models);
  });

  it('keeps every level so each is counted on its own scope', () => {
    const r = resolveLimits(chain({ scopeType: 'key', rpm: 5 }, { scopeType: 'org', rpm: 10 }));
    expect(r.rpm).toEqual([
      { scope: 'key:k1', limit: 5 },
      { scope: 'org:o1', limit: 10 },
    ]);
  });

  it.each([
    [undefined, 'm', true],
    [[], 'm', false],
    [['m'], 'm', true],
    [['n'], 'm', false],
  ])('isModelAllowed(%j, %s) = %s', (allowed, model, want) => {
    expect(isModelAllowed({ rpm: [], tpm: [], budgets: [], allowedModels: allowed as string[] | undefined }, model)).toBe(want);
  });

  it('property: the resolved limit is never looser than any level on the chain', () => {
    const opt = (arb: fc.Arbitrary<number>) => fc.option(arb, { nil: undefined });
    const models = fc.option(fc.subarray(['a', 'b', 'c', 'd']), { nil: undefined });
    const level = (scopeType: ScopeType) =>
      fc.record({
        scopeType: fc.constant(scopeType),
        scopeId: fc.constant(scopeType + '-id'),
        rpm: opt(fc.nat(1000)),
        tpm: opt(fc.nat(100000)),
        budgetMicros: opt(fc.nat(10 ** 9)),
        budgetPeriod: fc.constantFrom<'day' | 'month'>('day', 'month'),
        allowedModels: models,
      });
    fc.assert(
      fc.property(fc.tuple(level('key'), level('project'), level('team'), level('org')), (levels) => {
        const r = resolveLimits(levels);
        const e = effectiveLimits(r);
        for (const l of levels) {
          if (l.rpm !== undefined) expect(e.rpm).toBeLessThanOrEqual(l.rpm);
          if (l.tpm !== undefined) expect(e.tpm).toBeLessThanOrEqual(l.tpm);
          if (l.budgetMicros !== undefined) {
            const eff = l.budgetPeriod === 'day' ? e.budgetMicrosPerDay : e.budgetMicrosPerMonth;
            expect(eff).toBeLessThanOrEqual(l.budgetMicros);
          }
          if (l.allowedModels !== undefined) {
            expect(r.allowedModels).toBeDefined();
            for (const m of r.allowedModels!) expect(l.allowedModels).toContain(m);
          }
        }
        // Nothing is limited that no level limited.
        if (levels.every((l) => l.rpm === undefined)) expect(e.rpm).toBeUndefined();
        if (levels.every((l) => l.allowedModels === undefined)) expect(r.allowedModels).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });
});

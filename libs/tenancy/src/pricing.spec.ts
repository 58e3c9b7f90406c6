import { costMicros, estimatePromptTokens, isFree } from './pricing';
import { hourStart, periodBounds } from './periods';

describe('pricing', () => {
  it.each([
    [undefined, 100, 100, 0],
    [{ promptPerMTok: 1, completionPerMTok: 2 }, 100, 50, 200],
    [{ promptPerMTok: 0.5, completionPerMTok: 0 }, 3, 0, 2],
    [{ promptPerMTok: 0, completionPerMTok: 0 }, 1000, 1000, 0],
  ])('costMicros(%j, %d, %d) = %d', (price, p, c, want) => {
    expect(costMicros(price, p, c)).toBe(want);
  });

  it.each([
    [undefined, true],
    [{ promptPerMTok: 0, completionPerMTok: 0 }, true],
    [{ promptPerMTok: 0, completionPerMTok: 1 }, false],
  ])('isFree(%j) = %s', (price, want) => {
    expect(isFree(price)).toBe(want);
  });

  it.each([
    [0, 0],
    [1, 1],
    [4, 1],
    [5, 2],
    [400, 100],
  ])('estimatePromptTokens(%d) = %d', (b, want) => {
    expect(estimatePromptTokens(b)).toBe(want);
  });
});

describe('periods', () => {
  it.each([
    ['day', '2026-11-30T13:45:00Z', '2026-11-30T00:00:00Z', '2026-12-01T00:00:00Z'],
    ['month', '2026-11-30T13:45:00Z', '2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z'],
    ['month', '2026-12-31T23:59:59Z', '2026-12-01T00:00:00Z', '2027-01-01T00:00:00Z'],
  ] as const)('%s bounds of %s', (period, now, start, end) => {
    expect(periodBounds(period, Date.parse(now))).toEqual({ start: Date.parse(start), end: Date.parse(end) });
  });

  it('hourStart floors to the hour', () => {
    expect(hourStart(Date.parse('2026-11-30T13:45:12Z'))).toBe(Date.parse('2026-11-30T13:00:00Z'));
  });
});

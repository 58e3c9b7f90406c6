import fc from 'fast-check';
import { scoredOf, seeded, sequence, testRequest } from '../testing';
import { MaxScorePicker, P2cPicker, RoundRobinPicker, SoftmaxPicker, softmaxPickerFactory } from './pickers';

const req = testRequest();

describe('max-score picker', () => {
  const picker = new MaxScorePicker('max-score');
  it.each([
    [[0.1, 0.9, 0.5], 'e1'],
    [[3, 2, 1], 'e0'],
    [[-1, -0.5], 'e1'],
  ])('picks the highest of %j', (totals, id) => {
    expect(picker.pick(req, scoredOf(totals), Math.random)?.endpoint.id).toBe(id);
  });

  it('returns undefined for no candidates', () => {
    expect(picker.pick(req, [], Math.random)).toBeUndefined();
  });

  it('breaks ties at random, over every tied candidate', () => {
    const scored = scoredOf([1, 2, 2, 0, 2]);
    const random = seeded(7);
    const seen = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const id = picker.pick(req, scored, random)!.endpoint.id;
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    expect([...seen.keys()].sort()).toEqual(['e1', 'e2', 'e4']);
    for (const n of seen.values()) expect(n).toBeGreaterThan(800);
  });
});

describe('p2c picker', () => {
  const picker = new P2cPicker('p2c');
  it.each([
    // random draws → first index floor(r·n), second floor(r·(n−1)) skipping the first
    [[0.5, 0.3, 0.9], [0, 0.99], 'e2'], // e0 vs e2
    [[0.5, 0.3, 0.9], [0.4, 0.0], 'e0'], // e1 vs e0
    [[0.5, 0.3, 0.9], [0.0, 0.0], 'e0'], // e0 vs e1 (second skips past the first)
  ])('scores %j with draws %j → %s', (totals, draws, id) => {
    expect(picker.pick(req, scoredOf(totals), sequence(...draws))?.endpoint.id).toBe(id);
  });

  it('with one candidate returns it without drawing', () => {
    expect(picker.pick(req, scoredOf([0.2]), () => Number.NaN)?.endpoint.id).toBe('e0');
  });

  it('property: never returns the worse of its two draws, and the two are distinct', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { minLength: 2, maxLength: 16 }),
        fc.double({ min: 0, max: 0.9999999, noNaN: true }),
        fc.double({ min: 0, max: 0.9999999, noNaN: true }),
        (totals, r1, r2) => {
          const scored = scoredOf(totals);
          const n = totals.length;
          const i = Math.floor(r1 * n);
          let j = Math.floor(r2 * (n - 1));
          if (j >= i) j++;
          expect(j).not.toBe(i);
          const got = picker.pick(req, scored, sequence(r1, r2))!;
          expect(got === scored[i] || got === scored[j]).toBe(true);
          expect(got.total).toBeGreaterThanOrEqual(Math.min(scored[i].total, scored[j].total));
          expect(got.total).toBeCloseTo(Math.max(scored[i].total, scored[j].total), 6);
        },
      ),
    );
  });
});

describe('softmax picker', () => {
  it('temperature 0 is argmax', () => {
    const picker = new SoftmaxPicker('softmax', 0);
    const random = seeded(1);
    for (let i = 0; i < 100; i++) expect(picker.pick(req, scoredOf([0.2, 0.8, 0.5]), random)?.endpoint.id).toBe('e1');
  });

  it.each([
    [0.05, 0.97],
    [1, 0.4],
  ])('at temperature %d prefers the best in proportion (best share > %d)', (t, minShare) => {
    const picker = new SoftmaxPicker('softmax', t);
    const random = seeded(42);
    let best = 0;
    const n = 4000;
    for (let i = 0; i < n; i++) if (picker.pick(req, scoredOf([0.2, 0.8, 0.5]), random)?.endpoint.id === 'e1') best++;
    expect(best / n).toBeGreaterThan(minShare);
    // exact softmax share: e^(0.8/t) / Σ e^(s/t)
    const w = [0.2, 0.8, 0.5].map((s) => Math.exp(s / t));
    expect(best / n).toBeCloseTo(w[1] / (w[0] + w[1] + w[2]), 1);
  });

  it('rejects a negative temperature and unknown params', () => {
    expect(() => softmaxPickerFactory.create('softmax', { temperature: -1 })).toThrow(/temperature/);
    expect(() => softmaxPickerFactory.create('softmax', { temp: 1 })).toThrow(/temp/);
  });
});

describe('round-robin picker', () => {
  it('cycles through the candidates in order, ignoring scores', () => {
    const picker = new RoundRobinPicker('round-robin');
    const scored = scoredOf([9, 0, 5]);
    const ids = Array.from({ length: 7 }, () => picker.pick(req, scored)!.endpoint.id);
    expect(ids).toEqual(['e0', 'e1', 'e2', 'e0', 'e1', 'e2', 'e0']);
  });

  it('returns undefined for no candidates', () => {
    expect(new RoundRobinPicker('rr').pick(req, [])).toBeUndefined();
  });
});

import type { EngineStats } from '@llmgw/engine-metrics';
import { testEndpoint, testRequest } from '../testing';
import { InflightScorer } from './inflight-scorer';
import { KvScorer } from './kv-scorer';
import { LoadScorer } from './load-scorer';
import { PoolPriorityScorer } from './pool-priority-scorer';
import { QueueScorer } from './queue-scorer';
import { queueScorerFactory } from './queue-scorer';
import { kvScorerFactory } from './kv-scorer';

const req = testRequest();
const stats = (s: Partial<EngineStats>): EngineStats => ({ waiting: 0, running: 0, ...s });
const scraped = { stale_factor: 0.5, unknown_score: 0.5 };

describe('queue scorer: 1 − min(1, waiting / target_waiting)', () => {
  const scorer = new QueueScorer('queue', { target_waiting: 4, ...scraped });
  it.each([
    ['empty queue', { stats: stats({ waiting: 0 }) }, 1],
    ['half the target', { stats: stats({ waiting: 2 }) }, 0.5],
    ['at the target', { stats: stats({ waiting: 4 }) }, 0],
    ['beyond the target', { stats: stats({ waiting: 40 }) }, 0],
    ['negative (bad scrape) counts as 0', { stats: stats({ waiting: -3 }) }, 1],
    ['never scraped → unknown_score', { stats: undefined }, 0.5],
    ['stale → × stale_factor', { stats: stats({ waiting: 1 }), stale: true }, 0.375],
    ['stale and never scraped', { stats: undefined, stale: true }, 0.25],
  ])('%s', (_label, over, expected) => {
    expect(scorer.score(req, [testEndpoint('a', over)]).get('a')).toBeCloseTo(expected, 9);
  });

  it('honours target_waiting', () => {
    const s = queueScorerFactory.create('queue', { target_waiting: 10 });
    expect(s.score(req, [testEndpoint('a', { stats: stats({ waiting: 5 }) })]).get('a')).toBeCloseTo(0.5);
  });
});

describe('kv scorer: 1 − kv_usage, 0 above the ceiling', () => {
  const scorer = new KvScorer('kv', { ceiling: 0.9, ...scraped });
  it.each([
    ['empty cache', 0, false, 1],
    ['30% used', 0.3, false, 0.7],
    ['exactly at the ceiling', 0.9, false, 0.1],
    ['just above the ceiling: hard penalty', 0.9001, false, 0],
    ['full', 1, false, 0],
    ['metric not published → unknown_score', undefined, false, 0.5],
    ['stale: × stale_factor', 0.2, true, 0.4],
  ])('%s', (_label, kvUsage, stale, expected) => {
    const ep = testEndpoint('a', { stats: stats({ kvUsage }), stale });
    expect(scorer.score(req, [ep]).get('a')).toBeCloseTo(expected, 9);
  });

  it('honours a custom ceiling', () => {
    const s = kvScorerFactory.create('kv', { ceiling: 0.5 });
    expect(s.score(req, [testEndpoint('a', { stats: stats({ kvUsage: 0.6 }) })]).get('a')).toBe(0);
    expect(s.score(req, [testEndpoint('a', { stats: stats({ kvUsage: 0.4 }) })]).get('a')).toBeCloseTo(0.6);
  });
});

describe('inflight scorer: 1 − norm(inflight per unit weight)', () => {
  it.each([
    ['all idle → all 1', [0, 0, 0], [100, 100, 100], undefined, [1, 1, 1]],
    ['relative to the busiest', [0, 2, 4], [100, 100, 100], undefined, [1, 0.5, 0]],
    ['weight doubles the room', [4, 4], [200, 100], undefined, [0.5, 0]],
    ['against a fixed cap', [0, 4, 16], [100, 100, 100], 8, [1, 0.5, 0]],
    ['zero weight treated as 100', [2, 4], [0, 100], undefined, [0.5, 0]],
  ])('%s', (_label, inflight, weights, cap, expected) => {
    const scorer = new InflightScorer('inflight', { cap });
    const eps = inflight.map((n, i) => testEndpoint(`e${i}`, { inflight: n, weight: weights[i] }));
    const got = scorer.score(req, eps);
    expected.forEach((v, i) => expect(got.get(`e${i}`)).toBeCloseTo(v, 9));
  });

  it('ignores stale: inflight is the router’s own, current count', () => {
    const scorer = new InflightScorer('inflight', {});
    const got = scorer.score(req, [testEndpoint('a', { stale: true, inflight: 0 }), testEndpoint('b', { inflight: 1 })]);
    expect(got.get('a')).toBe(1);
  });
});

describe('load scorer: 1 − norm(running / drain_rate)', () => {
  const scorer = new LoadScorer('load', scraped);
  it.each([
    [
      'same running, slower replica scores lower',
      [
        [4, 4],
        [4, 2],
      ],
      [0.5, 0],
    ],
    [
      'drain time relative to the largest',
      [
        [2, 2],
        [4, 2],
        [8, 2],
      ],
      [0.75, 0.5, 0],
    ],
    [
      'all idle → all 1',
      [
        [0, 1],
        [0, 5],
      ],
      [1, 1],
    ],
    [
      'unknown rate uses the mean of known rates',
      [
        [6, 3],
        [6, undefined],
        [3, 1],
      ],
      [1 / 3, 0, 0],
    ],
    [
      'no rate known: running alone',
      [
        [1, undefined],
        [4, undefined],
      ],
      [0.75, 0],
    ],
    [
      'zero rate treated as unknown',
      [
        [2, 0],
        [4, 2],
      ],
      [0.5, 0],
    ],
  ])('%s', (_label, rows, expected) => {
    const eps = (rows as [number, number | undefined][]).map(([running, drainRate], i) => testEndpoint(`e${i}`, { stats: stats({ running }), drainRate }));
    const got = scorer.score(req, eps);
    expected.forEach((v, i) => expect(got.get(`e${i}`)).toBeCloseTo(v, 9));
  });

  it('never-scraped gets unknown_score; stale is multiplied by stale_factor', () => {
    const got = scorer.score(req, [
      testEndpoint('a', { stats: undefined }),
      testEndpoint('b', { stats: stats({ running: 0 }), stale: true, drainRate: 1 }),
      testEndpoint('c', { stats: stats({ running: 2 }), drainRate: 1 }),
    ]);
    expect(got.get('a')).toBe(0.5);
    expect(got.get('b')).toBe(0.5);
    expect(got.get('c')).toBe(0);
  });
});

describe('pool-priority scorer', () => {
  it.each([
    ['spread', [100, 50, 0], [1, 0.5, 0]],
    ['all equal → 1', [7, 7], [1, 1]],
  ])('%s', (_label, prios, expected) => {
    const eps = prios.map((p, i) => testEndpoint(`e${i}`, { poolPriority: p }));
    const got = new PoolPriorityScorer('pool-priority').score(req, eps);
    expected.forEach((v, i) => expect(got.get(`e${i}`)).toBeCloseTo(v, 9));
  });
});

import { PrefixIndex } from '@llmgw/prefix';
import { buildProfiles, createDefaultRegistry } from '../../profiles';
import { schedule } from '../../schedule';
import { seeded, testEndpoint, testRequest } from '../../testing';
import type { EndpointView } from '../../types';
import { PrefixScorer } from './prefix-scorer';

// balance_fair_factor 0: the absolute guard alone (the fair-share guard has its own cases below).
const params = { cache_threshold: 0.3, balance_abs_threshold: 16, balance_rel_threshold: 1.5, balance_fair_factor: 0, load: 'inflight' as const };
const SYS = 'You are a careful assistant. '.repeat(20); // 580 chars: 9 chunks of 64
const prompt = (text: string) => ({ text });
const eps = (...inflight: number[]): EndpointView[] => inflight.map((n, i) => testEndpoint(`r${i + 1}`, { inflight: n }));

function withHistory(): PrefixIndex {
  const ix = new PrefixIndex({ now: () => 0 });
  ix.record('m', prompt(SYS + 'conversation A, turn 1 '.repeat(10)), 'r1');
  ix.record('m', prompt('An entirely different system prompt. '.repeat(20)), 'r2');
  return ix;
}

describe('prefix scorer decisions', () => {
  const turn2 = prompt(SYS + 'conversation A, turn 1 '.repeat(10) + 'and the second turn');

  it.each([
    ['no prompt → no_tree, least loaded scores 1', undefined, eps(4, 2, 0), 'no_tree', { r1: 0, r2: 0.5, r3: 1 }],
    ['unknown prompt → cache_miss_min_load', prompt('zzzz'.repeat(64)), eps(1, 2, 4), 'cache_miss_min_load', { r1: 0.75, r2: 0.5, r3: 0 }],
    ['a match above the threshold → cache_hit with the match ratios', turn2, eps(3, 0, 0), 'cache_hit', { r1: 1, r2: 0, r3: 0 }],
    ['imbalance 20 − 2 > 16 and 20 > 2 × 1.5 → load_balance_override', turn2, eps(20, 2, 3), 'load_balance_override', { r1: 0, r2: 0.9, r3: 0.85 }],
    ['imbalance 30 − 20 ≤ 16 → the guard holds back', turn2, eps(30, 20, 20), 'cache_hit', { r1: 1, r2: 0, r3: 0 }],
    ['imbalance 17 − 0 > 16 and 17 > 0 × 1.5 → override (min 0)', turn2, eps(17, 0, 0), 'load_balance_override', { r1: 0, r2: 1, r3: 1 }],
  ])('%s', (_label, p, candidates, decision, scores) => {
    const s = new PrefixScorer('prefix', params, withHistory());
    const d = s.scoreDetailed(testRequest({ prompt: p }), candidates);
    expect(d.cacheDecision).toBe(decision);
    for (const [id, v] of Object.entries(scores)) expect(d.scores.get(id)).toBeCloseTo(v, 2);
  });

  it.each([
    // fair share = (Σ + 1) / N; the best match (r1) takes this request: load + 1 against 2 × fair share.
    ['3 of 3 on the best match: 4 > 2 × 4/3 → override', eps(3, 0, 0), 'load_balance_override'],
    ['8 clients on 6 engines, 4 on the best match: 5 > 2 × 9/6 → override', eps(4, 1, 1, 1, 1, 0), 'load_balance_override'],
    ['the best match 1 over the least loaded: never hot', eps(1, 0, 0), 'cache_hit'],
    ['evenly loaded: 4 ≤ 2 × 10/3 → cache_hit', eps(3, 3, 3), 'cache_hit'],
    ['3 on the best match, 2 elsewhere: 4 ≤ 2 × 8/3 → cache_hit', eps(3, 2, 2), 'cache_hit'],
    ['another replica hot, not the best match: cache_hit', eps(0, 6, 0), 'cache_hit'],
  ])('fair-share guard (balance_fair_factor 2): %s', (_label, candidates, decision) => {
    const s = new PrefixScorer('prefix', { ...params, balance_fair_factor: 2 }, withHistory());
    const turn2 = prompt(SYS + 'conversation A, turn 1 '.repeat(10) + 'and the second turn');
    const d = s.scoreDetailed(testRequest({ prompt: turn2 }), candidates);
    expect(d.cacheDecision).toBe(decision);
    // When it fires the least loaded scores 1.
    if (decision === 'load_balance_override') expect(d.scores.get(candidates[candidates.length - 1].id)).toBe(1);
  });

  it('a match below cache_threshold is a miss', () => {
    const s = new PrefixScorer('prefix', { ...params, cache_threshold: 0.9 }, withHistory());
    const d = s.scoreDetailed(testRequest({ prompt: prompt(SYS + 'x'.repeat(640)) }), eps(0, 0));
    expect(d.cacheDecision).toBe('cache_miss_min_load');
    expect(d.prefix!.matchRatio).toBeCloseTo(9 / 19, 5);
  });

  it('the best match not among the candidates → stale', () => {
    const s = new PrefixScorer('prefix', params, withHistory());
    const d = s.scoreDetailed(testRequest({ prompt: turn2 }), [testEndpoint('r2'), testEndpoint('r3')]);
    expect(d.cacheDecision).toBe('stale');
  });

  it('no candidates → no_healthy_worker', () => {
    const s = new PrefixScorer('prefix', params, withHistory());
    expect(s.scoreDetailed(testRequest({ prompt: turn2 }), []).cacheDecision).toBe('no_healthy_worker');
  });

  it("load 'engine' reads scraped running + waiting, 'max' the larger of both", () => {
    const two = [testEndpoint('r1', { inflight: 0, stats: { running: 18, waiting: 2, kvUsage: 0 } }), testEndpoint('r2', { inflight: 1 })];
    const engine = new PrefixScorer('prefix', { ...params, load: 'engine' }, withHistory());
    expect(engine.scoreDetailed(testRequest({ prompt: turn2 }), two).cacheDecision).toBe('load_balance_override');
    const inflight = new PrefixScorer('prefix', params, withHistory());
    expect(inflight.scoreDetailed(testRequest({ prompt: turn2 }), two).cacheDecision).toBe('cache_hit');
    const max = new PrefixScorer('prefix', { ...params, load: 'max' }, withHistory());
    expect(max.scoreDetailed(testRequest({ prompt: turn2 }), two).cacheDecision).toBe('load_balance_override');
  });
});

describe('prefix scorer in the pipeline', () => {
  it('a conversation returns to the replica it was first sent to, and decisions are reported', () => {
    const index = new PrefixIndex({ now: () => 0 });
    const profiles = buildProfiles({ chat: { scorers: { prefix: 3, inflight: 1 } } }, createDefaultRegistry({ prefixIndex: index }));
    const chat = profiles.get('chat')!;
    const candidates = eps(0, 0, 0, 0);
    const random = seeded(7);
    let text = SYS;
    const first = schedule(chat, testRequest({ prompt: prompt(text + 'hello') }), candidates, { random });
    if (first.kind !== 'picked') throw new Error('no pick');
    expect(first.prefix!.decision).toBe('no_tree');
    for (let turn = 0; turn < 5; turn++) {
      text += `user turn ${turn} `.repeat(8) + `assistant reply ${turn} `.repeat(8);
      const r = schedule(chat, testRequest({ prompt: prompt(text) }), candidates, { random });
      if (r.kind !== 'picked') throw new Error('no pick');
      expect(r.endpoint.id).toBe(first.endpoint.id);
      expect(r.cacheDecision).toBe('cache_hit');
      expect(r.prefix!.matchRatio).toBeGreaterThan(0.3);
    }
  });

  it('a picker that overrules the best match turns cache_hit into load_balance_override', () => {
    const index = new PrefixIndex({ now: () => 0 });
    index.record('m', prompt(SYS), 'r1');
    // inflight weighted far above prefix: the busy r1 loses although it holds the prefix
    const profiles = buildProfiles({ chat: { scorers: { prefix: 0.1, inflight: 10 } } }, createDefaultRegistry({ prefixIndex: index }));
    const r = schedule(profiles.get('chat')!, testRequest({ prompt: prompt(SYS) }), eps(5, 0), { random: seeded(1) });
    if (r.kind !== 'picked') throw new Error('no pick');
    expect(r.endpoint.id).toBe('r2');
    expect(r.prefix!.decision).toBe('load_balance_override');
    expect(r.cacheDecision).toBe('load_balance_override');
  });

  it('profiles without a prefix scorer report no prefix outcome', () => {
    const r = schedule(buildProfiles(undefined).get('debug')!, testRequest(), eps(0), { random: seeded(1) });
    expect(r.kind === 'picked' && r.prefix).toBeUndefined();
  });
});

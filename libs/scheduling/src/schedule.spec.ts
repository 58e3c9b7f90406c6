import fc from 'fast-check';
import { BoundedLoadRing } from '@llmgw/prefix';
import { MaxScorePicker } from './pickers/pickers';
import { buildProfiles } from './profiles';
import { DEFAULT_SATURATION, replicaLoadOf, saturatedByLoad, schedule, type ScheduleOptions } from './schedule';
import { seeded, testEndpoint, testRequest } from './testing';
import type { EndpointView, PickResult, RoutingProfile, Scorer } from './types';

const profiles = buildProfiles(undefined);
const chat = profiles.get('chat')!;
/** The tier-0 profile the built-in `chat` was before it took the prefix scorer: session affinity stays configurable and tested. */
const SESSION_PROFILE = { scorers: { session: 3, queue: 1, kv: 1, inflight: 1 }, picker: { type: 'max-score' } };
const sessionProfile = (): RoutingProfile => buildProfiles({ sessions: SESSION_PROFILE }).get('sessions')!;
/** A prompt of several tree chunks (64 characters each). */
const longPrompt = (tag: string): { text: string } => ({ text: `${tag}: ${'You are a careful assistant. '.repeat(12)}` });
const opts = (o: Partial<ScheduleOptions> = {}): ScheduleOptions => ({ random: seeded(3), ...o });
const picked = (r: PickResult): Extract<PickResult, { kind: 'picked' }> => {
  if (r.kind !== 'picked') throw new Error(`expected a pick, got ${r.reason}`);
  return r;
};

describe('schedule: outcomes', () => {
  it.each([
    ['no endpoints at all', [], {}, 'no_candidates'],
    ['all draining or unavailable', [testEndpoint('a', { draining: true }), testEndpoint('b', { available: false })], {}, 'all_filtered'],
    ['all excluded', [testEndpoint('a'), testEndpoint('b')], { exclude: new Set(['a', 'b']) }, 'all_filtered'],
    [
      'granted pool has nothing usable',
      [testEndpoint('a', { pool: 'p1' }), testEndpoint('b', { pool: 'p2', draining: true })],
      { pool: 'p2' },
      'pool_unavailable',
    ],
  ])('%s → no_endpoint %s', (_label, eps, o, reason) => {
    const r = schedule(chat, testRequest(), eps as EndpointView[], opts(o as Partial<ScheduleOptions>));
    expect(r).toMatchObject({ kind: 'no_endpoint', reason, considered: (eps as EndpointView[]).length });
  });

  it('counts what each stage removed', () => {
    const eps = [
      testEndpoint('a'),
      testEndpoint('b', { draining: true }),
      testEndpoint('c', { available: false }),
      testEndpoint('d', { draining: true, available: false }),
      testEndpoint('e'),
    ];
    const r = picked(schedule(chat, testRequest(), eps, opts({ exclude: new Set(['e']) })));
    expect(r.considered).toBe(5);
    expect(r.filtered).toEqual({ exclude: 1, draining: 2, available: 1, pinned: 0 });
    expect(r.endpoint.id).toBe('a');
    expect(r.scored.map((s) => s.endpoint.id)).toEqual(['a']);
  });

  it('never picks a draining, unavailable or excluded endpoint, even the best scored', () => {
    const busy = { inflight: 50, stats: { waiting: 20, running: 8, kvUsage: 0.95 } };
    const eps = [
      testEndpoint('best-draining', { draining: true }),
      testEndpoint('best-cooling', { available: false }),
      testEndpoint('best-tried'),
      testEndpoint('busy', busy),
    ];
    const random = seeded(11);
    for (let i = 0; i < 200; i++) {
      const r = schedule(chat, testRequest({ sessionKey: `s${i}` }), eps, { random, exclude: new Set(['best-tried']) });
      expect(picked(r).endpoint.id).toBe('busy');
    }
  });

  it('a stale endpoint loses score but is still a candidate', () => {
    const stats = { waiting: 1, running: 2, kvUsage: 0.3 };
    const eps = [testEndpoint('fresh', { stats }), testEndpoint('stale', { stats, stale: true })];
    const r = picked(schedule(chat, testRequest(), eps, opts()));
    const total = (id: string): number => r.scored.find((s) => s.endpoint.id === id)!.total;
    expect(r.scored).toHaveLength(2);
    expect(total('stale')).toBeLessThan(total('fresh'));
    expect(r.endpoint.id).toBe('fresh');
    const only = picked(schedule(chat, testRequest(), [eps[1]], opts()));
    expect(only.endpoint.id).toBe('stale');
  });
});

describe('schedule: invariants', () => {
  const arbEndpoint = fc.record({
    draining: fc.boolean(),
    available: fc.boolean(),
    stale: fc.boolean(),
    inflight: fc.nat(20),
    poolPriority: fc.constantFrom(0, 50, 100),
    waiting: fc.nat(10),
    running: fc.nat(16),
    kvUsage: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    excluded: fc.boolean(),
  });

  it.each(['chat', 'batch', 'long-context', 'debug'])('property (%s): picks a usable, non-excluded candidate whenever one exists, else no_endpoint', (name) => {
    const profile = buildProfiles(undefined).get(name)!;
    fc.assert(
      fc.property(
        fc.array(arbEndpoint, { minLength: 0, maxLength: 16 }),
        fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
        fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }),
        fc.integer(),
        (specs, sessionKey, promptTag, seed) => {
          const eps = specs.map((s, i) =>
            testEndpoint(`e${i}`, {
              ...s,
              pool: `p${s.poolPriority}`,
              stats: { waiting: s.waiting, running: s.running, kvUsage: s.kvUsage },
            }),
          );
          const exclude = new Set(eps.filter((_, i) => specs[i].excluded).map((e) => e.id));
          const usable = eps.filter((e) => !e.draining && e.available && !exclude.has(e.id));
          // The profile's prefix index keeps what earlier runs recorded, so repeated prompts meet hits and stale matches.
          const prompt = promptTag === undefined ? undefined : longPrompt(promptTag);
          const r = schedule(profile, testRequest({ sessionKey, prompt }), eps, { random: seeded(seed), exclude });
          if (usable.length === 0) {
            expect(r.kind).toBe('no_endpoint');
            return;
          }
          const p = picked(r);
          expect(usable).toContain(p.endpoint);
          for (const s of p.scored) {
            for (const v of Object.values(s.perScorer)) {
              expect(v).toBeGreaterThanOrEqual(0);
              expect(v).toBeLessThanOrEqual(1);
            }
          }
          const removed = Object.values(p.filtered).reduce((a, b) => a + b, 0);
          expect(removed + p.scored.length).toBe(eps.length);
        },
      ),
      { numRuns: 150 },
    );
  });
  // The scorers' array path (`scoreInto`, what schedule() calls) against their Map path (`score`/`scoreDetailed`):
  // the same profile with every scorer stripped to its Map methods decides the same, score for score.
  const mapOnly = (p: RoutingProfile): RoutingProfile => ({
    ...p,
    scorers: p.scorers.map(({ scorer, weight }) => {
      const s = scorer;
      const wrapped: Scorer = { type: s.type, name: s.name, score: (r, e) => s.score(r, e), picked: s.picked && ((r, e) => s.picked!(r, e)) };
      if (s.scoreDetailed) wrapped.scoreDetailed = (r, e) => s.scoreDetailed!(r, e);
      return { scorer: wrapped, weight };
    }),
  });

  it.each(['chat', 'batch', 'long-context', 'sessions'])('property (%s): the array path decides exactly as the Map path', (name) => {
    const fast = buildProfiles({ sessions: SESSION_PROFILE }).get(name)!;
    const slow = mapOnly(buildProfiles({ sessions: SESSION_PROFILE }).get(name)!);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            spec: arbEndpoint,
            weight: fc.constantFrom(50, 100, 200),
            drainRate: fc.option(fc.double({ min: 0, max: 5, noNaN: true }), { nil: undefined }),
          }),
          {
            minLength: 1,
            maxLength: 16,
          },
        ),
        fc.option(fc.constantFrom('s1', 's2'), { nil: undefined }),
        fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }),
        fc.integer(),
        (specs, sessionKey, promptTag, seed) => {
          const eps = specs.map(({ spec: s, weight, drainRate }, i) =>
            testEndpoint(`e${i}`, {
              ...s,
              weight,
              drainRate,
              pool: `p${s.poolPriority}`,
              stats: s.stale && s.waiting > 5 ? undefined : { waiting: s.waiting, running: s.running, kvUsage: s.kvUsage },
            }),
          );
          const exclude = new Set(eps.filter((_, i) => specs[i].spec.excluded).map((e) => e.id));
          // One PromptKey object per side (the index memoizes by object), equal text.
          const req = (): ReturnType<typeof testRequest> => testRequest({ sessionKey, prompt: promptTag === undefined ? undefined : longPrompt(promptTag) });
          const a = schedule(fast, req(), eps, { random: seeded(seed), exclude });
          const b = schedule(slow, req(), eps, { random: seeded(seed), exclude });
          expect(a).toEqual(b);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('schedule: pinned replica', () => {
  const eps = [testEndpoint('a'), testEndpoint('b', { inflight: 9, stats: { waiting: 9, running: 9, kvUsage: 0.8 } }), testEndpoint('c', { draining: true })];
  it.each([
    ['usable pin wins over better replicas', 'b', 'b'],
    ['draining pin falls through to the best', 'c', 'a'],
    ['unknown pin falls through', 'zz', 'a'],
  ])('%s', (_label, pin, expected) => {
    const r = picked(schedule(chat, testRequest({ pinnedReplica: pin }), eps, opts()));
    expect(r.endpoint.id).toBe(expected);
  });

  it('an excluded pin (a retry) falls through', () => {
    const r = picked(schedule(chat, testRequest({ pinnedReplica: 'b' }), eps, opts({ exclude: new Set(['b']) })));
    expect(r.endpoint.id).toBe('a');
  });
});

describe('schedule: pool stage', () => {
  const h100 = [testEndpoint('h1', { pool: 'h100', poolPriority: 100 }), testEndpoint('h2', { pool: 'h100', poolPriority: 100 })];
  const a100 = [testEndpoint('a1', { pool: 'a100', poolPriority: 50 })];
  const l40 = [testEndpoint('l1', { pool: 'l40', poolPriority: 10 })];
  const all = [...a100, ...l40, ...h100];

  it.each([
    ['nothing saturated → highest priority pool', [], 'h100', 2],
    ['top pool saturated → next pool', ['h100'], 'a100', 3],
    ['top two saturated → third', ['h100', 'a100'], 'l40', 3],
    ['everything saturated → highest priority anyway', ['h100', 'a100', 'l40'], 'h100', 2],
  ])('%s', (_label, saturated, pool, removed) => {
    const sat = new Set(saturated);
    const r = picked(schedule(chat, testRequest(), all, opts({ poolSaturated: (p) => sat.has(p) })));
    expect(r.pool).toBe(pool);
    expect(r.endpoint.pool).toBe(pool);
    expect(r.filtered['pool-stage']).toBe(removed);
  });

  it('a pool with no usable endpoint is skipped without asking about saturation', () => {
    const asked: string[] = [];
    const eps = [...h100.map((e) => ({ ...e, draining: true })), ...a100];
    const r = picked(schedule(chat, testRequest(), eps, opts({ poolSaturated: (p) => (asked.push(p), false) })));
    expect(r.pool).toBe('a100');
    expect(asked).toEqual([]);
  });

  it('pools of equal priority form one tier; spill only when all of them are saturated', () => {
    const low = testEndpoint('z1', { pool: 'z', poolPriority: 1 });
    const eps = [testEndpoint('x1', { pool: 'x', poolPriority: 5 }), testEndpoint('y1', { pool: 'y', poolPriority: 5 }), low];
    const seen = new Set<string>();
    const random = seeded(5);
    for (let i = 0; i < 50; i++) {
      seen.add(picked(schedule(chat, testRequest(), eps, { random, poolSaturated: (p) => p === 'x' })).pool);
    }
    expect([...seen].sort()).toEqual(['x', 'y']);
    const spilled = picked(schedule(chat, testRequest(), eps, opts({ poolSaturated: (p) => p !== 'z' })));
    expect(spilled.pool).toBe('z');
  });

  it('the default detector spills when the top pool is over target_waiting / kv_ceiling', () => {
    const full = { waiting: 8, running: 16, kvUsage: 0.5 };
    const eps = [...h100.map((e) => ({ ...e, stats: full })), ...a100];
    expect(picked(schedule(chat, testRequest(), eps, opts())).pool).toBe('a100');
    expect(picked(schedule(chat, testRequest(), [...h100, ...a100], opts())).pool).toBe('h100');
  });

  it('opts.pool restricts to the granted pool and never spills', () => {
    const r = picked(schedule(chat, testRequest(), all, opts({ pool: 'l40', poolSaturated: () => true })));
    expect(r.endpoint.id).toBe('l1');
    expect(r.filtered.pool).toBe(3);
    expect(r.filtered['pool-stage']).toBeUndefined();
  });

  it('saturatedByLoad uses admission-core poolSaturation', () => {
    const sat = saturatedByLoad(DEFAULT_SATURATION, 0.5);
    expect(sat('p', [testEndpoint('a', { stats: { waiting: 1, running: 1 } })])).toBe(false); // 0.25
    expect(sat('p', [testEndpoint('a', { stats: { waiting: 2, running: 1 } })])).toBe(true); // 0.5
    expect(replicaLoadOf(testEndpoint('a', { inflight: 3, stats: undefined }))).toEqual({
      waiting: 0,
      running: 0,
      kvUsage: undefined,
      inflight: 3,
      batchCapacity: 1,
    });
  });
});

describe('schedule: scoring', () => {
  const fixed = (name: string, values: Record<string, number | undefined>): Scorer => ({
    type: `${name}-scorer`,
    name,
    score: (_req, eps) => {
      const m = new Map<string, number>();
      for (const e of eps) if (values[e.id] !== undefined) m.set(e.id, values[e.id]!);
      return m;
    },
  });
  const profile = (scorers: RoutingProfile['scorers']): RoutingProfile => ({
    name: 't',
    filters: [],
    scorers,
    picker: new MaxScorePicker('max-score'),
  });

  it('clamps each score to [0,1] (NaN and missing → 0), records it, and sums weight × score', () => {
    const p = profile([
      { scorer: fixed('s1', { a: 2, b: -1, c: Number.NaN, d: 0.5 }), weight: 2 },
      { scorer: fixed('s2', { a: 0.25, b: 1, c: 0.5 }), weight: 0.5 },
    ]);
    const eps = ['a', 'b', 'c', 'd'].map((id) => testEndpoint(id));
    const r = picked(schedule(p, testRequest(), eps, opts()));
    const by = Object.fromEntries(r.scored.map((s) => [s.endpoint.id, s]));
    expect(by.a.perScorer).toEqual({ s1: 1, s2: 0.25 });
    expect(by.b.perScorer).toEqual({ s1: 0, s2: 1 });
    expect(by.c.perScorer).toEqual({ s1: 0, s2: 0.5 });
    expect(by.d.perScorer).toEqual({ s1: 0.5, s2: 0 });
    expect([by.a.total, by.b.total, by.c.total, by.d.total]).toEqual([2.125, 0.5, 0.25, 1]);
    expect(r.endpoint.id).toBe('a');
  });

  it('weights decide between conflicting scorers', () => {
    const eps = [testEndpoint('a'), testEndpoint('b')];
    const s1 = fixed('s1', { a: 1, b: 0 });
    const s2 = fixed('s2', { a: 0, b: 1 });
    expect(
      picked(
        schedule(
          profile([
            { scorer: s1, weight: 2 },
            { scorer: s2, weight: 1 },
          ]),
          testRequest(),
          eps,
          opts(),
        ),
      ).endpoint.id,
    ).toBe('a');
    expect(
      picked(
        schedule(
          profile([
            { scorer: s1, weight: 1 },
            { scorer: s2, weight: 2 },
          ]),
          testRequest(),
          eps,
          opts(),
        ),
      ).endpoint.id,
    ).toBe('b');
  });

  it('x-llmgw-profile changes the scorer set', () => {
    const eps = [testEndpoint('a')];
    const names = (name: string): string[] => Object.keys(picked(schedule(profiles.get(name)!, testRequest(), eps, opts())).scored[0].perScorer).sort();
    expect(names('chat')).toEqual(['inflight', 'kv', 'prefix', 'queue', 'session']);
    expect(names('batch')).toEqual(['inflight', 'kv', 'load', 'prefix', 'queue']);
    expect(names('long-context')).toEqual(['inflight', 'kv', 'prefix', 'queue']);
    expect(names('debug')).toEqual(['inflight']);
  });

  it('debug round-robins over the candidates', () => {
    const debug = buildProfiles(undefined).get('debug')!;
    const eps = [testEndpoint('a'), testEndpoint('b'), testEndpoint('c')];
    const ids = Array.from({ length: 6 }, () => picked(schedule(debug, testRequest(), eps, opts())).endpoint.id);
    expect(ids).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });
});

describe('schedule: session affinity (a configured tier-0 profile) and cache decisions', () => {
  const ids = ['r0', 'r1', 'r2', 'r3'];
  const sessions = sessionProfile();

  it('a session stays on one replica until it passes load_factor × average, then moves to the next on the ring', () => {
    const fresh = sessionProfile();
    const owner = new BoundedLoadRing(ids).owner('conversation-42')!;
    const next = new BoundedLoadRing(ids.filter((i) => i !== owner)).owner('conversation-42')!;
    const inflight: Record<string, number> = { r0: 2, r1: 2, r2: 2, r3: 2 };
    const decide = (): Extract<PickResult, { kind: 'picked' }> =>
      picked(
        schedule(
          fresh,
          testRequest({ sessionKey: 'conversation-42' }),
          ids.map((id) => testEndpoint(id, { inflight: inflight[id] })),
          opts(),
        ),
      );
    // Each turn lands on the owner and stays there (inflight keeps rising on it).
    const seen: string[] = [];
    for (;;) {
      const r = decide();
      if (r.cacheDecision !== 'session_hit') break;
      seen.push(r.endpoint.id);
      inflight[r.endpoint.id]++;
    }
    expect(new Set(seen)).toEqual(new Set([owner]));
    // bound = ceil(1.25 × (6 + k + 1) / 4) with k on the owner: the owner stops at load 4 (k = 2).
    expect(seen).toHaveLength(2);
    const r = decide();
    expect(r.cacheDecision).toBe('session_overflow');
    expect(r.endpoint.id).toBe(next);
  });

  it('a retry that excludes the session replica goes to the next one on the ring', () => {
    const owner = new BoundedLoadRing(ids).owner('conv-7')!;
    const next = new BoundedLoadRing(ids.filter((i) => i !== owner)).owner('conv-7')!;
    const eps = ids.map((id) => testEndpoint(id));
    const first = picked(schedule(sessions, testRequest({ sessionKey: 'conv-7' }), eps, opts()));
    expect(first.endpoint.id).toBe(owner);
    const retry = picked(schedule(sessions, testRequest({ sessionKey: 'conv-7' }), eps, opts({ exclude: new Set([owner]) })));
    expect(retry.endpoint.id).toBe(next);
  });

  it.each([
    ['a profile without a cache-aware scorer', 'none', 'debug', 'k'],
    ['no session key', 'no_session', 'sessions', undefined],
    ['a session key', 'session_hit', 'sessions', 'k'],
    // The built-in chat: tier 0 labels a request with a session key; without one the prefix scorer's decision is the label.
    ['a session key in the built-in chat', 'session_hit', 'chat', 'k'],
    ['no session key in the built-in chat (prefix, no prompt)', 'no_tree', 'chat', undefined],
    ['no session key in batch (no session scorer)', 'no_tree', 'batch', undefined],
  ])('labels %s as %s', (_label, decision, profile, sessionKey) => {
    const eps = ids.map((id) => testEndpoint(id));
    const r = picked(schedule(profile === 'sessions' ? sessions : profiles.get(profile)!, testRequest({ sessionKey }), eps, opts()));
    expect(r.cacheDecision).toBe(decision);
  });

  it('labels session_override when other scorers outweigh affinity', () => {
    const p = buildProfiles({ q: { scorers: { session: 0.1, queue: 5 } } }).get('q')!;
    const owner = new BoundedLoadRing(ids).owner('k')!;
    const eps = ids.map((id) => testEndpoint(id, { stats: { waiting: id === owner ? 4 : 0, running: 0 } }));
    const r = picked(schedule(p, testRequest({ sessionKey: 'k' }), eps, opts()));
    expect(r.endpoint.id).not.toBe(owner);
    expect(r.cacheDecision).toBe('session_override');
  });
});

describe('schedule: the built-in profiles route by prefix (tiers 1–2)', () => {
  const ids = ['r0', 'r1', 'r2', 'r3'];

  it.each([
    ['chat', undefined],
    ['batch', 'k'],
    ['long-context', 'k'],
  ])('%s: a repeated prompt returns to the replica that got it first (session keys: %s)', (name, keyed) => {
    const profile = buildProfiles(undefined).get(name)!;
    const eps = ids.map((id) => testEndpoint(id));
    const random = seeded(9);
    const prompt = longPrompt(`conversation for ${name}`);
    const key = (i: number): string | undefined => (keyed ? `${keyed}${i}` : undefined);
    const first = picked(schedule(profile, testRequest({ prompt, sessionKey: key(0) }), eps, { random }));
    expect(first.cacheDecision).toBe('no_tree');
    expect(first.prefix).toEqual({ decision: 'no_tree', matchRatio: 0 });
    for (let i = 1; i <= 5; i++) {
      const r = picked(
        schedule(profile, testRequest({ prompt: { text: `${prompt.text} turn ${i}`.padEnd(prompt.text.length + 64, '.') }, sessionKey: key(i) }), eps, {
          random,
        }),
      );
      expect(r.endpoint.id).toBe(first.endpoint.id);
      expect(r.cacheDecision).toBe('cache_hit');
      expect(r.prefix!.decision).toBe('cache_hit');
    }
  });

  it('chat: with no known prefix the least loaded replica wins (no_tree, then cache_miss_min_load)', () => {
    const profile = buildProfiles(undefined).get('chat')!;
    const eps = ids.map((id, i) => testEndpoint(id, { inflight: [3, 2, 0, 1][i] }));
    const none = picked(schedule(profile, testRequest(), eps, opts()));
    expect([none.endpoint.id, none.cacheDecision]).toEqual(['r2', 'no_tree']);
    picked(
      schedule(
        profile,
        testRequest({ prompt: longPrompt('seen') }),
        eps.map((e) => testEndpoint(e.id)),
        opts(),
      ),
    );
    const miss = picked(schedule(profile, testRequest({ prompt: longPrompt('never seen') }), eps, opts()));
    expect([miss.endpoint.id, miss.cacheDecision]).toEqual(['r2', 'cache_miss_min_load']);
  });
});

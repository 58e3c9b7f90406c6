import { BoundedLoadRing } from '@llmgw/prefix';
import { testEndpoint, testRequest } from '../testing';
import type { EndpointView } from '../types';
import { SessionScorer, sessionScorerFactory } from './session-scorer';

const params = { load_factor: 1.25, min_bound: 0, load: 'inflight' as const, virtual_nodes: 160, neutral_score: 0.5 };
const fleet = (n: number, inflight: (id: string) => number = () => 0): EndpointView[] =>
  Array.from({ length: n }, (_, i) => testEndpoint(`r${i}`, { inflight: inflight(`r${i}`) }));

describe('session scorer (tier 0)', () => {
  it('without a session key gives everyone the neutral score', () => {
    const d = new SessionScorer('session', params).scoreDetailed(testRequest(), fleet(3));
    expect([...d.scores.values()]).toEqual([0.5, 0.5, 0.5]);
    expect(d.cacheDecision).toBe('no_session');
  });

  it('scores the ring owner 1 and every other 0', () => {
    const eps = fleet(5);
    const owner = new BoundedLoadRing(eps.map((e) => e.id)).owner('alice');
    const d = new SessionScorer('session', params).scoreDetailed(testRequest({ sessionKey: 'alice' }), eps);
    expect(d.target).toBe(owner);
    expect(d.cacheDecision).toBe('session_hit');
    for (const e of eps) expect(d.scores.get(e.id)).toBe(e.id === owner ? 1 : 0);
  });

  it('keeps a key on its replica until that replica passes load_factor × average, then moves to the next on the ring', () => {
    const scorer = new SessionScorer('session', params);
    const ids = ['r0', 'r1', 'r2', 'r3'];
    const owner = new BoundedLoadRing(ids).owner('bob')!;
    const next = new BoundedLoadRing(ids.filter((i) => i !== owner)).owner('bob');
    const load: Record<string, number> = { r0: 4, r1: 4, r2: 4, r3: 4 };
    const run = (): ReturnType<SessionScorer['scoreDetailed']> =>
      scorer.scoreDetailed(
        testRequest({ sessionKey: 'bob' }),
        ids.map((id) => testEndpoint(id, { inflight: load[id] })),
      );
    // bound = ceil(1.25 × (total + 1) / 4): the owner keeps the session up to load 5, loses it at 6.
    for (const ownerLoad of [0, 4, 5]) {
      load[owner] = ownerLoad;
      expect(run()).toMatchObject({ target: owner, cacheDecision: 'session_hit' });
    }
    load[owner] = 6;
    expect(run()).toMatchObject({ target: next, cacheDecision: 'session_overflow' });
    load[owner] = 4;
    expect(run()).toMatchObject({ target: owner, cacheDecision: 'session_hit' });
  });

  it('counts scraped running in the load when asked to', () => {
    const scorer = sessionScorerFactory.create('session', { load: 'inflight+running' });
    const ids = ['a', 'b', 'c'];
    const owner = new BoundedLoadRing(ids).owner('k');
    const eps = ids.map((id) => testEndpoint(id, { stats: { waiting: 0, running: id === owner ? 10 : 0 } }));
    expect(scorer.scoreDetailed!(testRequest({ sessionKey: 'k' }), eps).cacheDecision).toBe('session_overflow');
    const inflightOnly = sessionScorerFactory.create('session', {});
    expect(inflightOnly.scoreDetailed!(testRequest({ sessionKey: 'k' }), eps).cacheDecision).toBe('session_hit');
  });

  it('distinct sessions spread over the replicas', () => {
    const scorer = new SessionScorer('session', params);
    const eps = fleet(4);
    const hits = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const t = scorer.scoreDetailed(testRequest({ sessionKey: `user-${i}` }), eps).target!;
      hits.set(t, (hits.get(t) ?? 0) + 1);
    }
    for (const e of eps) expect(hits.get(e.id)).toBeGreaterThan(600);
  });

  it.each([
    [{ load_factor: 0.9 }, /load_factor/],
    [{ load: 'running' }, /load/],
    [{ virtual_nodes: 0 }, /virtual_nodes/],
    [{ loadFactor: 1.5 }, /Unrecognized key.*loadFactor/],
  ])('rejects params %j', (p, msg) => {
    expect(() => sessionScorerFactory.create('session', p)).toThrow(msg);
  });
});

describe('session scorer min_bound', () => {
  it('keeps the session home below the floor, then moves it to the next on the ring', () => {
    const owner = new BoundedLoadRing(['r0', 'r1', 'r2']).owner('k')!;
    const next = new BoundedLoadRing(['r0', 'r1', 'r2'].filter((i) => i !== owner)).owner('k')!;
    const target = (minBound: number, load: number): string | undefined =>
      new SessionScorer('session', { ...params, min_bound: minBound }).scoreDetailed(
        testRequest({ sessionKey: 'k' }),
        fleet(3, (id) => (id === owner ? load : 0)),
      ).target;
    // Without the floor one request more than the others already overflows (bound ceil(1.25 × 2/3) = 1).
    expect(target(0, 1)).toBe(next);
    expect([0, 1, 2].map((l) => target(3, l))).toEqual([owner, owner, owner]);
    expect(target(3, 3)).toBe(next);
  });
});

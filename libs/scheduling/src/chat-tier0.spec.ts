import { BoundedLoadRing } from '@llmgw/prefix';
import { buildProfiles } from './profiles';
import { schedule } from './schedule';
import { seeded, testEndpoint, testRequest } from './testing';
import type { EndpointView, PickResult } from './types';

// docs/scheduling.md#routing-profiles: the built-in `chat` keeps a session on its replica (tier 0)
// and lets the prefix scorer decide for requests without a session key.
const ids = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'];
const prompt = (tag: string, turn: number): { text: string } => ({ text: `${tag} ${'You are a careful assistant. '.repeat(10)} question ${turn} `.repeat(2) });
const picked = (r: PickResult): Extract<PickResult, { kind: 'picked' }> => {
  if (r.kind !== 'picked') throw new Error(`expected a pick, got ${r.reason}`);
  return r;
};

describe('the built-in chat profile: tier-0 session affinity by default', () => {
  it('keeps 12 requests with one session key and different prompts on the ring owner, against the prefix tree and moderate load', () => {
    const chat = buildProfiles(undefined).get('chat')!;
    const owner = new BoundedLoadRing(ids).owner('sess-a')!;
    const random = seeded(5);
    const inflight: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 1]));
    // Every prompt is first recorded elsewhere (no session key), so the prefix scorer points away from the owner.
    for (let turn = 0; turn < 12; turn++) {
      const eps = (): EndpointView[] =>
        ids.map((id) => testEndpoint(id, { inflight: inflight[id], stats: { waiting: 0, running: inflight[id], kvUsage: 0.2 } }));
      const elsewhere = picked(
        schedule(
          chat,
          testRequest({ prompt: prompt(`other-${turn}`, turn) }),
          eps().filter((e) => e.id !== owner),
          { random },
        ),
      );
      const r = picked(schedule(chat, testRequest({ sessionKey: 'sess-a', prompt: prompt(`other-${turn}`, turn) }), eps(), { random }));
      expect(elsewhere.endpoint.id).not.toBe(owner);
      expect([r.endpoint.id, r.cacheDecision]).toEqual([owner, 'session_hit']);
      // The prefix scorer saw a hit elsewhere that the session outweighed.
      expect(r.prefix?.decision).toBe('load_balance_override');
      // Load spread evenly: the owner stays within load_factor × average.
      for (const id of ids) inflight[id] += id === owner ? 0 : turn % 2;
    }
  });

  it('different session keys spread over the replicas, each key always to its own', () => {
    const chat = buildProfiles(undefined).get('chat')!;
    const ring = new BoundedLoadRing(ids);
    const eps = ids.map((id) => testEndpoint(id));
    const used = new Set<string>();
    for (let k = 0; k < 60; k++) {
      const key = `user-${k}`;
      const a = picked(schedule(chat, testRequest({ sessionKey: key, prompt: prompt('x', k) }), eps, { random: seeded(k) }));
      const b = picked(schedule(chat, testRequest({ sessionKey: key, prompt: prompt('y', k) }), eps, { random: seeded(k + 1) }));
      expect(a.endpoint.id).toBe(ring.owner(key));
      expect(b.endpoint.id).toBe(a.endpoint.id);
      used.add(a.endpoint.id);
    }
    expect(used.size).toBe(ids.length);
  });

  it('overload moves the session to the next replica on the ring, and it returns once the owner is within bound', () => {
    const chat = buildProfiles(undefined).get('chat')!;
    const owner = new BoundedLoadRing(ids).owner('sess-b')!;
    const next = new BoundedLoadRing(ids.filter((i) => i !== owner)).owner('sess-b')!;
    const inflight: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 6]));
    const decide = (turn: number): Extract<PickResult, { kind: 'picked' }> =>
      picked(
        schedule(
          chat,
          testRequest({ sessionKey: 'sess-b', prompt: prompt('b', turn) }),
          ids.map((id) => testEndpoint(id, { inflight: inflight[id] })),
          { random: seeded(turn) },
        ),
      );
    // The owner takes the session while load + 1 ≤ ceil(1.25 × (Σ + 1) / 6): up to 9 with the others at 6.
    const kept: number[] = [];
    for (let turn = 0; turn < 20; turn++) {
      const r = decide(turn);
      if (r.endpoint.id !== owner) break;
      expect(r.cacheDecision).toBe('session_hit');
      kept.push(inflight[owner]);
      inflight[owner]++;
    }
    expect(kept).toEqual([6, 7, 8]);
    const moved = decide(1);
    expect([moved.endpoint.id, moved.cacheDecision]).toEqual([next, 'session_overflow']);
    // Much more load on the owner: still the next on the ring, not the least loaded of the rest.
    inflight[owner] = 30;
    inflight[next] = 8;
    expect(decide(2).endpoint.id).toBe(next);
    inflight[owner] = 6;
    inflight[next] = 6;
    expect([decide(3).endpoint.id, decide(3).cacheDecision]).toEqual([owner, 'session_hit']);
  });

  it('at a handful of requests the session stays home up to 4 in flight (min_bound), then moves on', () => {
    const chat = buildProfiles(undefined).get('chat')!;
    const owner = new BoundedLoadRing(ids).owner('sess-c')!;
    const next = new BoundedLoadRing(ids.filter((i) => i !== owner)).owner('sess-c')!;
    const at = (load: number): string =>
      picked(
        schedule(
          chat,
          testRequest({ sessionKey: 'sess-c' }),
          ids.map((id) => testEndpoint(id, { inflight: id === owner ? load : 0 })),
          { random: seeded(load) },
        ),
      ).endpoint.id;
    // The ring's own bound would be ceil(1.25 × (load + 1) / 6) = 1: the floor of 4 keeps the session home.
    expect([0, 1, 2, 3].map(at)).toEqual([owner, owner, owner, owner]);
    expect(at(4)).toBe(next);
  });

  it('without a session key the prefix tree decides: a conversation returns to the replica holding its prefix', () => {
    const chat = buildProfiles(undefined).get('chat')!;
    const eps = ids.map((id, i) => testEndpoint(id, { inflight: i === 0 ? 1 : 0 }));
    const first = picked(schedule(chat, testRequest({ prompt: prompt('conv', 0) }), eps, { random: seeded(1) }));
    for (let turn = 1; turn <= 8; turn++) {
      const text = `${prompt('conv', 0).text} and turn ${turn} `.padEnd(prompt('conv', 0).text.length + 70, '.');
      const r = picked(schedule(chat, testRequest({ prompt: { text } }), eps, { random: seeded(turn) }));
      expect([r.endpoint.id, r.cacheDecision]).toEqual([first.endpoint.id, 'cache_hit']);
    }
  });

  it('a session key set to the empty string counts as none', () => {
    const chat = buildProfiles(undefined).get('chat')!;
    const r = picked(
      schedule(
        chat,
        testRequest({ sessionKey: '' }),
        ids.map((id) => testEndpoint(id)),
        { random: seeded(2) },
      ),
    );
    expect(r.cacheDecision).toBe('no_tree');
  });
});

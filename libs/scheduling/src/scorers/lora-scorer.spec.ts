import { seeded, testEndpoint, testRequest } from '../testing';
import type { EndpointView } from '../types';
import { LoraScorer, loraScorerFactory } from './lora-scorer';

const scorer = (params: object = {}) => loraScorerFactory.create('lora', params) as LoraScorer;
const lora = (running: string[], waiting: string[] = [], maxLora = 1) => ({
  waiting: 0,
  running: running.length,
  kvUsage: 0,
  lora: { maxLora, running, waiting },
});

describe('lora scorer', () => {
  it('scores a replica holding the adapter first, a free slot next, evicting an idle adapter after, all slots running last', () => {
    const s = scorer({ max_loaded_adapters: 2 });
    const eps = [
      testEndpoint('has', { stats: lora(['sql'], [], 2) }),
      testEndpoint('free', { stats: lora(['legal'], [], 2) }),
      testEndpoint('idle', { stats: lora([], [], 1) }),
      testEndpoint('busy', { stats: lora(['a', 'b'], [], 2) }),
    ];
    s.picked(testRequest({ adapter: 'chat' }), eps[2]);
    const got = s.score(testRequest({ adapter: 'sql' }), eps);
    expect([...got.entries()]).toEqual([
      ['has', 1],
      ['free', 0.6],
      ['idle', 0.3],
      ['busy', 0.05],
    ]);
    expect([...s.score(testRequest(), eps).values()]).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it('remembers what it sent (the metric forgets idle adapters) and keeps at most max_loaded_adapters', () => {
    const s = scorer({ max_loaded_adapters: 2 });
    const ep = testEndpoint('e', { stats: lora([], [], 0) });
    for (const a of ['x', 'y', 'z']) s.picked(testRequest({ adapter: a }), ep);
    expect(s.loaded(ep)).toEqual(['z', 'y']);
    // the engine's own max_lora label wins over the parameter
    expect(s.loaded(testEndpoint('e', { stats: lora([], [], 1) }))).toEqual(['z']);
  });

  it('spreads a hot adapter when the replica holding it saturates', () => {
    const s = scorer();
    const hot = testEndpoint('hot', { stats: { ...lora(['sql']), waiting: 6 } });
    const other = testEndpoint('other', { stats: lora([]) });
    const got = s.score(testRequest({ adapter: 'sql' }), [hot, other]);
    expect(got.get('other')).toBeGreaterThan(got.get('hot')!);
    const byInflight = testEndpoint('hot', { stats: lora(['sql']), batchCapacity: 8, inflight: 8 });
    expect(s.score(testRequest({ adapter: 'sql' }), [byInflight]).get('hot')).toBe(0.45);
  });

  it('refuses unknown parameters', () => {
    expect(() => scorer({ max_loras: 2 })).toThrow(/lora-scorer 'lora' params/);
  });

  it('loads adapters fewer times than round robin: three adapters over two 1-slot replicas', () => {
    // Each replica holds one adapter (LRU of 1, as vLLM with --max-loras 1); a request for another adapter is a load.
    const run = (choose: (adapter: string, eps: EndpointView[], i: number) => EndpointView) => {
      const held = new Map<string, string>();
      const eps = [testEndpoint('a'), testEndpoint('b')];
      const random = seeded(7);
      let loads = 0;
      for (let i = 0; i < 300; i++) {
        const adapter = ['sql', 'legal', 'chat'][Math.floor(random() * 3)];
        const ep = choose(
          adapter,
          eps.map((e) => ({ ...e, stats: lora(held.has(e.id) ? [held.get(e.id)!] : []) })),
          i,
        );
        if (held.get(ep.id) !== adapter) loads++;
        held.set(ep.id, adapter);
      }
      return loads;
    };
    const s = scorer();
    const affinity = run((adapter, eps) => {
      const sc = s.score(testRequest({ adapter }), eps);
      const best = eps.reduce((x, y) => (sc.get(y.id)! > sc.get(x.id)! ? y : x));
      s.picked(testRequest({ adapter }), best);
      return best;
    });
    const roundRobin = run((_a, eps, i) => eps[i % 2]);
    // With 1 slot per replica and 3 adapters, one adapter in three always needs a load; round robin reloads about 2 in 3.
    // Measured with this seed: 88 loads with affinity, 210 with round robin, out of 300 requests.
    expect(affinity).toBeLessThan(roundRobin * 0.5);
  });
});

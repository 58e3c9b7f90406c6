import { SchedulingConfigError } from './errors';
import { DEFAULT_PROFILES, SESSION_WEIGHT, buildProfiles, createDefaultRegistry, profilesConfigSchema } from './profiles';
import { PluginRegistry } from './registry';
import type { RoutingProfile } from './types';

const summary = (p: RoutingProfile): { filters: string[]; scorers: Record<string, number>; picker: string } => ({
  filters: p.filters.map((f) => f.name),
  scorers: Object.fromEntries(p.scorers.map((s) => [s.scorer.name, s.weight])),
  picker: p.picker.type,
});

function configError(fn: () => unknown): SchedulingConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SchedulingConfigError) return e;
    throw e;
  }
  throw new Error('expected a SchedulingConfigError');
}

describe('buildProfiles', () => {
  it('builds the four built-in profiles with no config', () => {
    const profiles = buildProfiles(undefined);
    expect([...profiles.keys()].sort()).toEqual(['batch', 'chat', 'debug', 'long-context']);
    const filters = ['draining', 'available', 'pinned'];
    // docs/scheduling.md#routing-profiles: the cache-aware scorer is `prefix` (tiers 1–2); `batch` keeps `load`.
    expect(summary(profiles.get('chat')!)).toEqual({ filters, scorers: { session: 10, prefix: 3, queue: 1, kv: 1, inflight: 1 }, picker: 'max-score-picker' });
    expect(summary(profiles.get('batch')!)).toEqual({ filters, scorers: { queue: 3, kv: 1, load: 1, prefix: 0.5, inflight: 1 }, picker: 'max-score-picker' });
    expect(summary(profiles.get('long-context')!)).toEqual({ filters, scorers: { kv: 3, prefix: 2, queue: 1, inflight: 1 }, picker: 'softmax-picker' });
    expect(summary(profiles.get('debug')!)).toEqual({ filters, scorers: { inflight: 1 }, picker: 'round-robin-picker' });
  });

  it('the built-in chat has tier-0 session affinity, outweighing every other scorer together; a configured profile may add it too', () => {
    const withSession = [...buildProfiles(undefined)].filter(([, p]) => 'session' in summary(p).scorers).map(([name]) => name);
    expect(withSession).toEqual(['chat']);
    const chat = summary(buildProfiles(undefined).get('chat')!).scorers;
    const others = Object.entries(chat).reduce((a, [name, w]) => a + (name === 'session' ? 0 : w), 0);
    expect(chat.session).toBe(SESSION_WEIGHT);
    expect(SESSION_WEIGHT).toBeGreaterThan(others);
    // Session first: its label decides x-llmgw-cache-decision when the request has a session key.
    expect(Object.keys(chat)[0]).toBe('session');
    const sessions = buildProfiles({ sessions: { scorers: { session: 3, queue: 1, kv: 1 } } }).get('sessions')!;
    expect(summary(sessions).scorers).toEqual({ session: 3, queue: 1, kv: 1, inflight: 1 });
  });

  it('a configured profile replaces the default of that name and may add new ones', () => {
    const profiles = buildProfiles({
      chat: { scorers: { queue: 2 }, picker: { type: 'p2c' } },
      agents: { scorers: { session: 5, kv: 1 }, picker: { type: 'softmax', temperature: 0.1 } },
    });
    expect(summary(profiles.get('chat')!).scorers).toEqual({ queue: 2, inflight: 1 });
    expect(summary(profiles.get('chat')!).picker).toBe('p2c-picker');
    expect(summary(profiles.get('agents')!).scorers).toEqual({ session: 5, kv: 1, inflight: 1 });
    expect(profiles.has('batch')).toBe(true);
  });

  it.each([
    ['inflight omitted → added at weight 1', { queue: 1 }, { queue: 1, inflight: 1 }],
    ['inflight given → kept at its weight', { queue: 1, inflight: 4 }, { queue: 1, inflight: 4 }],
  ])('inflight is always on: %s', (_label, scorers, expected) => {
    expect(summary(buildProfiles({ x: { scorers } }).get('x')!).scorers).toEqual(expected);
  });

  it('passes scorer_params to the scorer and lets options supply defaults under them', () => {
    const profiles = buildProfiles(
      {
        a: { scorers: { queue: 1, session: 1 }, scorer_params: { queue: { target_waiting: 10 } } },
        b: { scorers: { session: 1 }, scorer_params: { session: { load_factor: 3 } } },
      },
      createDefaultRegistry(),
      { scorerParams: { session: { load_factor: 1.5 } } },
    );
    const params = (p: string, s: string): unknown =>
      (profiles.get(p)!.scorers.find((w) => w.scorer.name === s)!.scorer as unknown as { params: unknown }).params;
    expect(params('a', 'queue')).toMatchObject({ target_waiting: 10 });
    expect(params('a', 'session')).toMatchObject({ load_factor: 1.5 });
    expect(params('b', 'session')).toMatchObject({ load_factor: 3 });
  });

  it.each([
    [
      'bad lora param',
      { chat: { scorers: { lora: 3 }, scorer_params: { lora: { max_loaded_adapters: 0 } } } },
      /lora-scorer 'lora' params\.max_loaded_adapters/,
    ],
    [
      'bad prefix param',
      { chat: { scorers: { prefix: 3 }, scorer_params: { prefix: { cache_threshold: 2 } } } },
      /prefix-scorer 'prefix' params\.cache_threshold/,
    ],
    [
      'unknown scorer names are rejected, listing the known ones',
      { chat: { scorers: { qeueu: 1 } } },
      /unknown scorer 'qeueu' \(known: inflight, kv, load, lora, pool-priority, prefix, queue, session\)/,
    ],
    ['unknown picker', { chat: { picker: { type: 'best' } } }, /profiles\.chat\.picker\.type: unknown picker 'best'/],
    ['bad picker param', { chat: { picker: { type: 'softmax', temperature: -2 } } }, /softmax-picker 'softmax' params\.temperature/],
    ['unknown picker param', { chat: { picker: { type: 'p2c', temperature: 1 } } }, /p2c-picker 'p2c' params: Unrecognized key: "temperature"/],
    ['bad scorer param', { chat: { scorers: { queue: 1 }, scorer_params: { queue: { target_waiting: 0 } } } }, /queue-scorer 'queue' params\.target_waiting/],
    [
      'params for a scorer not in the profile',
      { chat: { scorers: { queue: 1 }, scorer_params: { kv: { ceiling: 0.8 } } } },
      /scorer_params\.kv: scorer 'kv' is not in this profile/,
    ],
    ['zero weight', { chat: { scorers: { queue: 0 } } }, /profiles\.chat\.scorers\.queue/],
    ['unknown profile key', { chat: { scorer: { queue: 1 } } }, /profiles\.chat: Unrecognized key: "scorer"/],
    ['unknown filter', { chat: { filters: ['gpu'] } }, /unknown filter type 'gpu-filter'/],
    ['bad profile name', { 'Chat Profile': {} }, /profile names are lower-case/],
  ])('%s', (_label, config, message) => {
    expect(configError(() => buildProfiles(config as never)).message).toMatch(message);
  });

  it('reports every problem at once', () => {
    const err = configError(() =>
      buildProfiles({ a: { scorers: { lora: 1, nope: 1 }, scorer_params: { lora: { saturation: 7 } } }, b: { picker: { type: 'zz' } } }),
    );
    expect(err.issues).toHaveLength(3);
  });

  it('profilesConfigSchema accepts the documented `profiles:` shape', () => {
    const parsed = profilesConfigSchema.parse({
      chat: { scorers: { prefix: 3.0, queue: 1.0, kv: 1.0, inflight: 1.0 }, picker: { type: 'p2c' } },
      batch: { scorers: { queue: 3.0, kv: 1.0, load: 1.0, prefix: 0.5 }, picker: { type: 'max-score' } },
      'long-context': { scorers: { kv: 3.0, prefix: 2.0, queue: 1.0 }, picker: { type: 'softmax', temperature: 0.2 } },
    });
    expect(parsed['long-context'].picker).toEqual({ type: 'softmax', temperature: 0.2 });
    expect(parsed.chat.filters).toEqual([]);
    expect(() => buildProfiles(parsed)).not.toThrow();
  });

  it('DEFAULT_PROFILES is frozen and builds cleanly', () => {
    expect(Object.isFrozen(DEFAULT_PROFILES)).toBe(true);
    expect(() => buildProfiles(DEFAULT_PROFILES)).not.toThrow();
  });
});

describe('PluginRegistry', () => {
  it('lets a new plugin be registered and used from config', () => {
    const registry = createDefaultRegistry().register('constant-scorer', {
      kind: 'scorer',
      description: 'test',
      create: (name) => ({ type: 'constant-scorer', name, score: (_r, eps) => new Map(eps.map((e) => [e.id, 1])) }),
    });
    const p = buildProfiles({ x: { scorers: { constant: 2 } } }, registry).get('x')!;
    expect(summary(p).scorers).toEqual({ constant: 2, inflight: 1 });
  });

  it.each([
    ['duplicate type', 'queue-scorer', 'scorer', /already registered/],
    ['suffix must match kind', 'queue-picker', 'scorer', /must end with '-scorer'/],
    ['kebab-case only', 'Queue_scorer', 'scorer', /kebab-case/],
  ])('register rejects %s', (_label, type, kind, message) => {
    const registry = createDefaultRegistry();
    expect(() => registry.register(type, { kind: kind as 'scorer', description: '', create: () => ({}) as never })).toThrow(message);
  });

  it('lists types per kind', () => {
    const r = createDefaultRegistry();
    expect(r.types('picker')).toEqual(['max-score-picker', 'p2c-picker', 'round-robin-picker', 'softmax-picker']);
    expect(r.types('filter')).toEqual(['available-filter', 'draining-filter', 'pinned-filter']);
    expect(new PluginRegistry().types()).toEqual([]);
  });
});

import { join } from 'node:path';
import { ConfigError } from './load';
import { loadCatalogFile, parseCatalog } from './catalog';

const base = {
  name: 'llama-3.3-70b',
  source: '/models/Llama-3.3-70B-Instruct',
  scaling: { min: 2, max: 6 },
  profiles: [
    { name: 'a100-tp8', gpu_class: 'a100-80g', engine: 'vllm', tp: 8, priority: 50 },
    { name: 'h100-tp4-fp8', gpu_class: 'h100-80g', engine: 'vllm', tp: 4, priority: 100, args: ['--quantization', 'fp8'] },
  ],
};

function issues(raw: unknown): string[] {
  try {
    parseCatalog(raw, 'catalog.yaml');
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
  return [];
}

describe('catalog', () => {
  it('loads catalog models with defaults, profiles by priority, durations in ms', () => {
    const c = parseCatalog({
      models: [
        { ...base, aliases: ['llama'], fallbacks: ['deepseek-large'], routing_profile: 'chat', slo: { ttft_p99: '2s', tpot_p99: '50ms' } },
        {
          name: 'deepseek-large',
          source: '/models/DeepSeek-V3',
          scaling: { min: 1, max: 2 },
          profiles: [{ name: 'h100-2node', gpu_class: 'h100-80g', engine: 'sglang', tp: 16, nodes: 2, gpus_per_node: 8, startup_timeout: '40m' }],
        },
      ],
    });
    const m = c.byName.get('llama')!;
    expect(m.name).toBe('llama-3.3-70b');
    expect(m.profiles.map((p) => p.name)).toEqual(['h100-tp4-fp8', 'a100-tp8']);
    expect(m.profiles[0]).toMatchObject({ gpusPerNode: 4, nodes: 1, pp: 1, weight: 100, startupTimeoutMs: 1_200_000 });
    expect(m.routingProfile).toBe('chat');
    expect(c.slo.get('llama-3.3-70b')).toEqual({ ttftP99Ms: 2000, tpotP99Ms: 50 });
    expect(c.byName.get('deepseek-large')!.profiles[0]).toMatchObject({ gpusPerNode: 8, nodes: 2, startupTimeoutMs: 2_400_000 });
    expect(Object.isFrozen(m)).toBe(true);
  });

  it.each<[string, unknown, { min: number; max: number }]>([
    ['no scaling stanza → off (0/0)', undefined, { min: 0, max: 0 }],
    ['min 0 max 0 → off', { min: 0, max: 0 }, { min: 0, max: 0 }],
    ['min 0 max 1 → on demand', { min: 0, max: 1 }, { min: 0, max: 1 }],
    ['{min: 2} → exactly two (max defaults to min)', { min: 2 }, { min: 2, max: 2 }],
    ['{min: 0} → off, never silently on demand', { min: 0 }, { min: 0, max: 0 }],
  ])('scaling: %s', (_t, scaling, want) => {
    const c = parseCatalog({ models: [{ ...base, scaling }] });
    expect(c.models[0].scaling).toMatchObject(want);
  });

  it.each<[string, (m: Record<string, unknown>) => unknown, string]>([
    [
      'an unknown engine',
      (m) => ({ ...m, profiles: [{ ...base.profiles[0], engine: 'tgi' }] }),
      'invalid configuration in catalog.yaml:\n  - models[0] (llama-3.3-70b).profiles[0] (a100-tp8).engine: Invalid option',
    ],
    [
      'a misspelt key',
      (m) => ({ ...m, profiles: [{ ...base.profiles[0], gpus_per_nod: 8 }] }),
      'models[0] (llama-3.3-70b).profiles[0] (a100-tp8): Unrecognized key',
    ],
    [
      'tp × pp ≠ gpus × nodes',
      (m) => ({ ...m, profiles: [{ ...base.profiles[0], tp: 8, gpus_per_node: 4 }] }),
      'tp × pp (8 × 1 = 8) must equal gpus_per_node × nodes (4 × 1 = 4)',
    ],
    [
      'llama.cpp across nodes',
      (m) => ({ ...m, profiles: [{ ...base.profiles[0], engine: 'llamacpp', tp: 2, nodes: 2 }] }),
      'engine llamacpp cannot span nodes',
    ],
    ['max below min', (m) => ({ ...m, scaling: { min: 3, max: 1 } }), 'models[0] (llama-3.3-70b).scaling.max: 1 is below min 3'],
    ['a bad duration', (m) => ({ ...m, scaling: { min: 0, max: 1, idle_timeout: 'soon' } }), 'scaling.idle_timeout: invalid duration "soon"'],
    ['a fallback that does not exist', (m) => ({ ...m, fallbacks: ['qwen'] }), 'fallbacks[0]: "qwen" is not a model in the catalog'],
    ['a duplicate profile', (m) => ({ ...m, profiles: [base.profiles[0], base.profiles[0]] }), 'profiles[1] (a100-tp8).name: duplicate profile name'],
    ['no profiles', (m) => ({ ...m, profiles: [] }), 'models[0] (llama-3.3-70b).profiles: a model needs at least one profile'],
    ['launch_mode on sglang', (m) => ({ ...m, profiles: [{ ...base.profiles[0], engine: 'sglang', launch_mode: 'ray' }] }), 'launch_mode is a vllm setting'],
    [
      'KV events on llama.cpp',
      (m) => ({ ...m, profiles: [{ ...base.profiles[0], engine: 'llamacpp', kv_events: true }] }),
      'engine llamacpp publishes no KV events',
    ],
    [
      'priority scheduling on llama.cpp',
      (m) => ({ ...m, profiles: [{ ...base.profiles[0], engine: 'llamacpp', scheduling_policy: 'priority' }] }),
      'engine llamacpp has no priority scheduling',
    ],
    ['max_num_seqs 0', (m) => ({ ...m, profiles: [{ ...base.profiles[0], max_num_seqs: 0 }] }), 'profiles[0] (a100-tp8).max_num_seqs'],
  ])('rejects %s, naming file, model and field', (_t, mutate, want) => {
    let msg = '';
    try {
      parseCatalog({ models: [mutate(base)] }, 'catalog.yaml');
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toContain(want);
  });

  it('fills the endpoint contract from the engine: vLLM priority + KV events + 256 slots, llama.cpp its 4 slots, fcfs, no events; declared values win', () => {
    const c = parseCatalog({
      models: [
        {
          ...base,
          profiles: [
            { name: 'v', gpu_class: 'h100-80g', engine: 'vllm' },
            { name: 'd', gpu_class: 'h100-80g', engine: 'vllm', max_num_seqs: 32, kv_events: false, scheduling_policy: 'fcfs' },
          ],
        },
        { name: 'tiny', source: '/m/q.gguf', profiles: [{ name: 'cpu', gpu_class: 'h100-80g', engine: 'llamacpp' }] },
      ],
    });
    const p = (m: string, n: string) => c.byName.get(m)!.profiles.find((x) => x.name === n)!;
    expect(p('llama-3.3-70b', 'v')).toMatchObject({ maxNumSeqs: 256, kvEvents: true, schedulingPolicy: 'priority' });
    expect(p('llama-3.3-70b', 'd')).toMatchObject({ maxNumSeqs: 32, kvEvents: false, schedulingPolicy: 'fcfs' });
    expect(p('tiny', 'cpu')).toMatchObject({ maxNumSeqs: 4, kvEvents: false, schedulingPolicy: 'fcfs' });
  });

  it('rejects a name or alias used twice, and reports every problem at once', () => {
    const got = issues({
      models: [
        { ...base, aliases: ['llama'] },
        { ...base, name: 'llama', scaling: { min: 2, max: 1 } },
      ],
    });
    expect(got).toEqual([
      'models[1] (llama): name or alias "llama" is already used by models[0] (llama-3.3-70b)',
      'models[1] (llama).scaling.max: 1 is below min 2',
    ]);
  });
});

describe('deploy/examples/catalog.yaml', () => {
  it('loads: always-on, multi-node, on-demand and off models', () => {
    const c = loadCatalogFile(join(__dirname, '../../../deploy/examples/catalog.yaml'));
    expect(c.models.map((m) => [m.name, m.scaling.min, m.scaling.max])).toEqual([
      ['llama-3.3-70b', 2, 6],
      ['deepseek-large', 1, 2],
      ['qwen2.5-32b', 0, 1],
      ['llama-3.1-405b', 0, 0],
    ]);
    expect(c.byName.get('llama')!.profiles[0].name).toBe('h100-tp4-fp8');
    expect(c.byName.get('qwen2.5-32b')!.scaling.idleTimeoutMs).toBe(900_000);
  });
});

const profile = { name: 'p', gpu_class: 'h100-80g', engine: 'vllm' };

describe('catalog sources, adapters and providers', () => {
  it('reads weights from a mirror or an hf-style repository, with credentials by file or env', () => {
    const c = parseCatalog({
      models: [
        { name: 'a', weights: { mirror: 'https://mirror.internal/models/a/', credentials: { file: '/etc/llmgw/mirror-token' } }, profiles: [profile] },
        { name: 'b', weights: { mirror: 'https://hf-mirror.internal', hf: 'org/b', credentials: { env: 'HF_TOKEN' } }, profiles: [profile] },
        { name: 'c', source: '/models/c', profiles: [profile] },
      ],
    });
    expect(c.weights.get('a')).toEqual({
      mirror: 'https://mirror.internal/models/a/',
      manifest: 'manifest.json',
      revision: 'main',
      credentials: { file: '/etc/llmgw/mirror-token' },
    });
    expect(c.weights.get('b')?.hf).toBe('org/b');
    expect(c.weights.has('c')).toBe(false);
    expect(c.byName.get('b')?.source).toBe('org/b');
    expect(c.byName.get('b')?.weights).toEqual({
      baseUrl: 'https://hf-mirror.internal/org/b/resolve/main/',
      manifest: 'llmgw-manifest.json',
      credentialsEnv: 'HF_TOKEN',
    });
    expect(c.byName.get('a')?.weights).toEqual({
      baseUrl: 'https://mirror.internal/models/a/',
      manifest: 'manifest.json',
      credentialsFile: '/etc/llmgw/mirror-token',
    });
    expect(c.byName.get('c')?.weights).toBeUndefined();
  });

  it("gives placement each adapter's path or mirror with its scale, and max_loaded_adapters", () => {
    const c = parseCatalog({
      models: [
        {
          name: 'base',
          source: '/models/base',
          max_loaded_adapters: 2,
          profiles: [profile],
          adapters: [
            { name: 'sql', weights: { mirror: 'https://mirror.internal/a/sql/', credentials: { env: 'TOKEN' } } },
            { name: 'legal', weights: { path: '/adapters/legal' }, scale: 0.8 },
          ],
        },
        { name: 'plain', source: '/models/plain', profiles: [profile] },
      ],
    });
    expect(c.byName.get('base')?.adapters).toEqual([
      { name: 'sql', scale: 1, weights: { baseUrl: 'https://mirror.internal/a/sql/', manifest: 'manifest.json', credentialsEnv: 'TOKEN' } },
      { name: 'legal', scale: 0.8, path: '/adapters/legal' },
    ]);
    expect(c.byName.get('base')?.maxLoadedAdapters).toBe(2);
    expect(c.byName.get('plain')?.adapters).toBeUndefined();
  });

  it('refuses secrets in URLs, both or neither credential source, and hf without a mirror', () => {
    expect(
      issues({
        models: [
          { name: 'a', weights: { mirror: 'https://user:pw@mirror.internal/a/' }, profiles: [profile] },
          { name: 'b', weights: { mirror: 'https://m/', credentials: { file: '/f', env: 'X' } }, profiles: [profile] },
          { name: 'c', weights: { path: '/m', hf: 'org/c' }, profiles: [profile] },
          { name: 'd', profiles: [profile] },
        ],
      }),
    ).toEqual([
      'models[0] (a).weights.mirror: credentials do not belong in the URL: use credentials.file or credentials.env',
      'models[1] (b).weights.credentials: give exactly one of file or env',
      'models[2] (c).weights: hf needs mirror (the host serving the repository)',
    ]);
    expect(issues({ models: [{ name: 'd', profiles: [profile] }] })).toEqual(['models[0] (d).source: give source, weights or provider']);
  });

  it('maps adapters to their base model and refuses names that clash', () => {
    const c = parseCatalog({
      models: [
        {
          name: 'llama-8b',
          source: '/m',
          max_loaded_adapters: 2,
          profiles: [profile],
          adapters: [
            { name: 'sql', weights: { mirror: 'https://m/sql/' } },
            { name: 'legal', weights: { path: '/adapters/legal' }, scale: 0.5 },
          ],
        },
      ],
    });
    expect(c.adapterBase.get('sql')?.base).toBe('llama-8b');
    expect(c.adapters.get('llama-8b')?.map((a) => [a.name, a.scale])).toEqual([
      ['sql', 1],
      ['legal', 0.5],
    ]);
    expect(c.maxLoadedAdapters.get('llama-8b')).toBe(2);
    expect(
      issues({
        models: [
          { name: 'x', source: '/m', profiles: [profile], adapters: [{ name: 'y', weights: { path: '/a' } }] },
          { name: 'y', source: '/m', profiles: [profile] },
        ],
      }),
    ).toEqual(['adapter "y" has the name of models[1] (y)']);
  });

  it('takes a provider-only model without profiles, with price and timeouts, and as a fallback', () => {
    const c = parseCatalog({
      models: [
        { name: 'local', source: '/m', profiles: [profile], fallbacks: ['hosted'] },
        {
          name: 'hosted',
          provider: {
            base_url: 'https://api.example.com/v1',
            model: 'gpt-x',
            credentials: { env: 'PROVIDER_KEY' },
            first_token_timeout: '20s',
            price: { input_per_million: 0.15, output_per_million: 0.6 },
          },
        },
      ],
    });
    const p = c.providers.get('hosted')!;
    expect(p).toMatchObject({
      model: 'gpt-x',
      first_token_timeout: 20_000,
      connect_timeout: 5_000,
      max_concurrency: 64,
      price: { input_per_million: 0.15, output_per_million: 0.6 },
    });
    expect(c.byName.get('hosted')?.profiles).toEqual([]);
    expect(c.byName.get('hosted')?.scaling).toMatchObject({ min: 0, max: 0 });
    expect(issues({ models: [{ name: 'h', provider: { base_url: 'https://a/v1', model: 'm' }, scaling: { min: 1 } }] })).toEqual([
      'models[0] (h).scaling: a provider-only model has no replicas to scale',
    ]);
    expect(issues({ models: [{ name: 'h', provider: { base_url: 'https://a/v1', model: 'm', api_key: 'sk-x' } }] })[0]).toMatch(
      /provider: Unrecognized key: "api_key"/,
    );
  });
});

import { ConfigError } from './load';
import { parseCatalog } from './catalog';

const profile = { name: 'p', gpu_class: 'h100-80g', engine: 'vllm' };

function issues(raw: unknown): string[] {
  try {
    parseCatalog(raw, 'catalog.yaml');
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
  return [];
}

describe('catalog sources, adapters and providers', () => {
  it('reads weights from a mirror or an hf-style repository, with credentials by file or env', () => {
    const c = parseCatalog({
      models: [
        { name: 'a', weights: { mirror: 'https://mirror.internal/models/a/', credentials: { file: '/etc/llmgw/mirror-token' } }, profiles: [profile] },
        { name: 'b', weights: { mirror: 'https://hf-mirror.internal', hf: 'org/b', credentials: { env: 'HF_TOKEN' } }, profiles: [profile] },
        { name: 'c', source: '/models/c', profiles: [profile] },
      ],
    });
    expect(c.weights.get('a')).toEqual({ mirror: 'https://mirror.internal/models/a/', manifest: 'manifest.json', revision: 'main', credentials: { file: '/etc/llmgw/mirror-token' } });
    expect(c.weights.get('b')?.hf).toBe('org/b');
    expect(c.weights.has('c')).toBe(false);
    expect(c.byName.get('b')?.source).toBe('org/b');
    expect(c.byName.get('b')?.weights).toEqual({ baseUrl: 'https://hf-mirror.internal/org/b/resolve/main/', manifest: 'llmgw-manifest.json', credentialsEnv: 'HF_TOKEN' });
    expect(c.byName.get('a')?.weights).toEqual({ baseUrl: 'https://mirror.internal/models/a/', manifest: 'manifest.json', credentialsFile: '/etc/llmgw/mirror-token' });
    expect(c.byName.get('c')?.weights).toBeUndefined();
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
          name: 'llama-8b', source: '/m', max_loaded_adapters: 2, profiles: [profile],
          adapters: [{ name: 'sql', weights: { mirror: 'https://m/sql/' } }, { name: 'legal', weights: { path: '/adapters/legal' }, scale: 0.5 }],
        },
      ],
    });
    expect(c.adapterBase.get('sql')?.base).toBe('llama-8b');
    expect(c.adapters.get('llama-8b')?.map((a) => [a.name, a.scale])).toEqual([['sql', 1], ['legal', 0.5]]);
    expect(c.maxLoadedAdapters.get('llama-8b')).toBe(2);
    expect(
      issues({ models: [{ name: 'x', source: '/m', profiles: [profile], adapters: [{ name: 'y', weights: { path: '/a' } }] }, { name: 'y', source: '/m', profiles: [profile] }] }),
    ).toEqual(['adapter "y" has the name of models[1] (y)']);
  });

  it('takes a provider-only model without profiles, with price and timeouts, and as a fallback', () => {
    const c = parseCatalog({
      models: [
        { name: 'local', source: '/m', profiles: [profile], fallbacks: ['hosted'] },
        {
          name: 'hosted',
          provider: { base_url: 'https://api.example.com/v1', model: 'gpt-x', credentials: { env: 'PROVIDER_KEY' }, first_token_timeout: '20s', price: { input_per_million: 0.15, output_per_million: 0.6 } },
        },
      ],
    });
    const p = c.providers.get('hosted')!;
    expect(p).toMatchObject({ model: 'gpt-x', first_token_timeout: 20_000, connect_timeout: 5_000, max_concurrency: 64, price: { input_per_million: 0.15, output_per_million: 0.6 } });
    expect(c.byName.get('hosted')?.profiles).toEqual([]);
    expect(c.byName.get('hosted')?.scaling).toMatchObject({ min: 0, max: 0 });
    expect(issues({ models: [{ name: 'h', provider: { base_url: 'https://a/v1', model: 'm' }, scaling: { min: 1 } }] })).toEqual([
      'models[0] (h).scaling: a provider-only model has no replicas to scale',
    ]);
    expect(issues({ models: [{ name: 'h', provider: { base_url: 'https://a/v1', model: 'm', api_key: 'sk-x' } }] })[0]).toMatch(/provider: Unrecognized key: "api_key"/);
  });
});

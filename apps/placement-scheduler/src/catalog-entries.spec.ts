import { parseCatalog } from '@llmgw/config';
import { decodeCatalogEntry } from '@llmgw/contracts';
import { catalogEntries } from './redis-state';

/**
 * The catalog view routers read names every adapter of a base model as an
 * entry of its own (docs/models.md, "Adapters"): the base as `model`, and the
 * adapter's llama.cpp id (its position) and scale — and the entry survives the
 * JSON round trip routers decode.
 */
describe('catalog view: adapters', () => {
  it('lists each adapter with its base model, id and scale', () => {
    const cat = parseCatalog({
      models: [
        {
          name: 'base',
          aliases: ['b'],
          source: '/m/base',
          adapters: [
            { name: 'sql', weights: { path: '/a/sql' } },
            { name: 'legal', weights: { path: '/a/legal' }, scale: 0.8 },
          ],
          profiles: [{ name: 'p', gpu_class: 'l40s-45g', engine: 'vllm' }],
        },
      ],
    });
    const entries = catalogEntries(cat.models, (m) => m.scaling);
    expect([...entries.keys()].sort()).toEqual(['b', 'base', 'legal', 'sql']);
    expect(entries.get('base')?.adapter).toBeUndefined();
    const legal = decodeCatalogEntry(JSON.stringify(entries.get('legal')));
    expect(legal).toMatchObject({ model: 'base', adapter: { name: 'legal', id: 1, scale: 0.8 } });
    expect(decodeCatalogEntry(JSON.stringify({ ...entries.get('sql'), adapter: { name: 'sql', id: -1 } }))?.adapter).toBeUndefined();
  });
});

/**
 * Providers and fallbacks reach routers through the catalog view (docs/models.md, "Providers"): a
 * provider model's entry carries the provider's settings and the credentials' reference only; a
 * self-hosted model's entries (its aliases too) carry its fallbacks.
 */
describe('catalog view: providers and fallbacks', () => {
  const cat = parseCatalog({
    models: [
      {
        name: 'llama',
        aliases: ['l'],
        source: '/m/llama',
        fallbacks: ['hosted'],
        adapters: [{ name: 'sql', weights: { path: '/a/sql' } }],
        profiles: [{ name: 'p', gpu_class: 'l40s-45g', engine: 'vllm' }],
      },
      {
        name: 'hosted',
        provider: {
          base_url: 'https://api.provider.example/v1',
          model: 'vendor/llama',
          credentials: { env: 'PROVIDER_KEY' },
          first_token_timeout: '30s',
          max_concurrency: 8,
          price: { input_per_million: 0.5, output_per_million: 1.5 },
        },
      },
      { name: 'filed', provider: { base_url: 'http://10.0.0.9:8000/v1', model: 'm', credentials: { file: '/etc/llmgw/provider-key' } } },
    ],
  });
  const entries = catalogEntries(cat.models, (m) => m.scaling, cat.providers);
  const read = (n: string) => decodeCatalogEntry(JSON.stringify(entries.get(n)));

  it("carries a provider's settings, with defaults filled, and the credentials' reference", () => {
    expect(read('hosted')).toEqual({
      v: 1,
      model: 'hosted',
      mode: 'off',
      retryAfterS: 5,
      provider: {
        base_url: 'https://api.provider.example/v1',
        model: 'vendor/llama',
        credentials: { env: 'PROVIDER_KEY' },
        connect_timeout: 5_000,
        first_token_timeout: 30_000,
        total_timeout: 600_000,
        max_concurrency: 8,
        price: { input_per_million: 0.5, output_per_million: 1.5 },
      },
    });
    expect(read('filed')?.provider?.credentials).toEqual({ file: '/etc/llmgw/provider-key' });
  });

  it("carries a model's fallbacks on its name and aliases, not on its adapters", () => {
    expect(read('llama')?.fallbacks).toEqual(['hosted']);
    expect(read('l')).toMatchObject({ model: 'llama', fallbacks: ['hosted'] });
    expect(read('sql')?.fallbacks).toBeUndefined();
    expect(read('llama')?.provider).toBeUndefined();
    expect(read('hosted')?.fallbacks).toBeUndefined();
  });

  it('a reader keeps only the fields it knows: nothing else a writer adds travels on', () => {
    const raw = { ...entries.get('hosted')!, provider: { ...entries.get('hosted')!.provider!, api_key: 'sk-x', credentials: { file: '/k', value: 'sk-y' } } };
    const e = decodeCatalogEntry(JSON.stringify(raw));
    expect(JSON.stringify(e)).not.toMatch(/sk-/);
    expect(e?.provider?.credentials).toEqual({ file: '/k' });
    expect(decodeCatalogEntry(JSON.stringify({ ...raw, provider: { model: 'x' } }))?.provider).toBeUndefined();
  });
});

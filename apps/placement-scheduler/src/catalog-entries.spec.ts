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

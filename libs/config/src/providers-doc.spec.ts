import { join } from 'node:path';
import { parseCatalog } from './catalog';
import { yamlExamples } from './doc-examples';
import { parseConfig } from './load';
import { routerConfigSchema } from './router';

// docs/models.md, "Providers": the router's example parses as router config, and its provider is the catalog example's.
describe('docs/models.md provider examples', () => {
  const doc = join(__dirname, '../../../docs/models.md');
  const hasProvider = (e: unknown) => ((e as { models?: Array<{ provider?: unknown }> }).models ?? []).some((m) => m.provider);

  it("the router's provider example parses, with the catalog example's provider", () => {
    const routers = yamlExamples(doc, 'router.yaml').filter(hasProvider);
    const catalogs = yamlExamples(doc, 'catalog.yaml').filter(hasProvider);
    expect(routers).toHaveLength(1);
    expect(catalogs).toHaveLength(1);
    const cfg = parseConfig(routerConfigSchema, routers[0], 'docs/models.md router provider example');
    const hosted = cfg.models.find((m) => m.name === 'hosted-8b')!.provider;
    expect(hosted).toMatchObject({ base_url: 'https://api.provider.example/v1', credentials: { file: '/etc/llmgw/provider-key' }, max_concurrency: 32 });
    expect(hosted?.price).toEqual({ input_per_million: 0.18, output_per_million: 0.18 });
    expect(cfg.models.find((m) => m.name === 'llama-3.1-8b')?.fallbacks).toEqual(['hosted-8b']);
    expect(hosted).toEqual(parseCatalog(catalogs[0]).providers.get('hosted-8b'));
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routerConfigSchema } from '@llmgw/config';
import type { CatalogProvider } from '@llmgw/contracts';
import { createRegistry } from '@llmgw/observability';
import { followCatalogProviders } from './catalog-feed';
import { withProviderPrices } from './prices';
import { Providers } from './upstreams';

// The catalog view's providers (docs/models.md, "Providers"): built, rebuilt, dropped and priced as
// the view changes; a key that cannot be read leaves the model out with a warning naming where it
// looked; the router's own `models` win.
describe('followCatalogProviders', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-catfeed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('follows the view: adds, rebuilds, drops and prices providers, keys read here', async () => {
    const file = join(dir, 'key');
    const cfg = routerConfigSchema.parse({
      models: [{ name: 'mine', provider: { base_url: 'http://mine/v1', model: 'm', price: { input_per_million: 7 } } }],
      tenancy: { prices: { fixed: { prompt_per_mtok: 1, completion_per_mtok: 1 } } },
    });
    const providers = new Providers(cfg, { registry: createRegistry('router'), env: { K: 'sk-env' } });
    let listen: () => void = () => undefined;
    let view = new Map<string, CatalogProvider>();
    const warnings: Array<Record<string, unknown>> = [];
    const tenancy = withProviderPrices(cfg);
    const stop = followCatalogProviders({ providers: () => view, onViewChange: (cb) => ((listen = cb), () => undefined) }, providers, {
      prices: tenancy.prices,
      ownPrices: new Set(Object.keys(tenancy.prices)),
      log: { warn: (o: Record<string, unknown>) => warnings.push(o) },
    });
    const change = (v: Record<string, CatalogProvider>) => {
      view = new Map(Object.entries(v));
      listen();
    };

    change({
      hosted: { base_url: 'http://h/v1', model: 'vendor/h', credentials: { env: 'K' }, price: { input_per_million: 2, output_per_million: 4 } },
      filed: { base_url: 'http://f/v1', model: 'f', credentials: { file } },
      fixed: { base_url: 'http://x/v1', model: 'x' },
      mine: { base_url: 'http://elsewhere/v1', model: 'other' },
      bad: { base_url: 'ftp://nope', model: 'b' },
    });
    expect(providers.authorization('provider:hosted')).toBe('Bearer sk-env');
    expect(providers.forModel('hosted')?.cfg).toMatchObject({ max_concurrency: 64, first_token_timeout: 60_000 });
    expect(providers.forModel('mine')?.cfg.base_url).toBe('http://mine/v1');
    expect(providers.forModel('filed')).toBeUndefined();
    expect(providers.forModel('bad')).toBeUndefined();
    expect(warnings.map((w) => w.model).sort()).toEqual(['bad', 'filed']);
    expect(String(warnings.find((w) => w.model === 'filed')?.reason)).toMatch(/cannot read .*key \(ENOENT\)/);
    expect(tenancy.prices).toMatchObject({
      hosted: { prompt_per_mtok: 2, completion_per_mtok: 4 },
      fixed: { prompt_per_mtok: 1, completion_per_mtok: 1 },
      mine: { prompt_per_mtok: 7, completion_per_mtok: 0 },
    });

    // The same view again warns no more; once the key file exists the provider is built.
    listen();
    expect(warnings).toHaveLength(2);
    writeFileSync(file, 'sk-file\n');
    listen();
    expect(providers.authorization('provider:filed')).toBe('Bearer sk-file');

    // A changed provider is rebuilt; a gone one is dropped, with its price.
    change({ hosted: { base_url: 'http://h2/v1', model: 'vendor/h', credentials: { env: 'K' } } });
    expect(providers.forModel('hosted')?.cfg.base_url).toBe('http://h2/v1');
    expect(providers.forModel('filed')).toBeUndefined();
    expect(providers.forModel('mine')).toBeDefined();
    expect(tenancy.prices.filed).toBeUndefined();
    expect(tenancy.prices.hosted).toEqual({ prompt_per_mtok: 0, completion_per_mtok: 0 });
    expect(JSON.stringify(warnings)).not.toMatch(/sk-/);
    stop();
    await providers.close();
  });
});

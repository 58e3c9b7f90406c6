import type { RouterConfig } from '@llmgw/config';

/**
 * The tenancy block with each provider's `price` (USD per million tokens) as
 * its model's ledger price (docs/models.md, "Providers"), unless
 * `tenancy.prices` names the model itself: budgets and the ledger's cost
 * then count a provider's tokens like any model's. The prices record is a
 * copy: the catalog view's providers are priced into it as they come and go
 * (catalog-feed.ts).
 */
export function withProviderPrices(cfg: Pick<RouterConfig, 'models' | 'tenancy'>): RouterConfig['tenancy'] {
  const extra: RouterConfig['tenancy']['prices'] = {};
  for (const m of cfg.models) {
    if (!m.provider || cfg.tenancy.prices[m.name]) continue;
    const { input_per_million, output_per_million } = m.provider.price;
    extra[m.name] = { prompt_per_mtok: input_per_million, completion_per_mtok: output_per_million };
  }
  return { ...cfg.tenancy, prices: { ...cfg.tenancy.prices, ...extra } };
}

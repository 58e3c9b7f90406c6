/** External providers (docs/models.md, "Providers"): catalog models served by an OpenAI-compatible API elsewhere. */
export { PROVIDER_PREFIX, Providers, isProviderPool, providerUrl, type ProviderUpstream } from './upstreams';
export { providerAttempt, type ProviderAttemptFacts } from './attempt';
export { ProviderResponse } from './response';
export { withProviderPrices } from './prices';
export { followCatalogProviders, type CatalogProviderView } from './catalog-feed';

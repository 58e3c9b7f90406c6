import { providerSchema, type ProviderConfig, type RouterConfig } from '@llmgw/config';
import type { CatalogProvider } from '@llmgw/contracts';
import type { Logger } from '@llmgw/observability';
import type { Providers } from './upstreams';

/** What the feed reads of the catalog view (the router's OnDemand). */
export interface CatalogProviderView {
  /** Catalogued models served by a provider, with its settings (the credentials by reference). */
  providers(): ReadonlyMap<string, CatalogProvider>;
  onViewChange(cb: () => void): () => void;
}

export interface CatalogFeedOptions {
  /**
   * The prices record the router's tenancy reads (a copy of `tenancy.prices`, see withProviderPrices):
   * each catalog provider's price is its model's price there while it is catalogued.
   */
  prices: RouterConfig['tenancy']['prices'];
  /** Models `tenancy.prices` of the router's config names: their price wins over a provider's. */
  ownPrices: ReadonlySet<string>;
  log: Pick<Logger, 'warn'>;
  /** How often models left out (a key not readable yet) are tried again without a change of the view, ms. */
  retryMs?: number;
}

/**
 * Keeps the router's providers in step with the placement-scheduler's catalog view (docs/models.md,
 * "Providers"): on every change of the view, the providers it names are validated with the
 * catalog's own rules, built (their key read from the file or environment variable the view names,
 * on this machine) or dropped, and their prices set for budgets and the ledger. A provider whose
 * settings are refused or whose key cannot be read is left out, with a warning that names where it
 * looked (never a value), repeated only when the reason changes, and tried again every `retryMs`. Returns an unsubscribe function.
 */
export function followCatalogProviders(view: CatalogProviderView, providers: Providers, o: CatalogFeedOptions): () => void {
  const priced = new Set<string>();
  const warned = new Map<string, string>();
  let bad = new Set<string>();
  const warn = (model: string, reason: string, msg: string) => {
    bad.add(model);
    if (warned.get(model) === reason) return;
    warned.set(model, reason);
    o.log.warn({ model, reason }, msg);
  };
  const apply = () => {
    bad = new Set();
    const wanted = new Map<string, ProviderConfig>();
    for (const [model, p] of view.providers()) {
      const r = providerSchema.safeParse(p);
      if (r.success) wanted.set(model, r.data);
      else
        warn(
          model,
          r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
          'catalog view: provider settings refused; no provider for the model here',
        );
    }
    for (const { model, issue } of providers.sync(wanted)) {
      warn(model, issue, 'catalog view: the provider key cannot be read on this router; no provider for the model here until it can be read');
    }
    for (const m of warned.keys()) if (!bad.has(m)) warned.delete(m);
    for (const m of priced) {
      if (wanted.has(m)) continue;
      delete o.prices[m];
      priced.delete(m);
    }
    for (const [m, c] of wanted) {
      if (o.ownPrices.has(m)) continue;
      o.prices[m] = { prompt_per_mtok: c.price.input_per_million, completion_per_mtok: c.price.output_per_million };
      priced.add(m);
    }
  };
  apply();
  const off = view.onViewChange(apply);
  const retry = setInterval(() => bad.size && apply(), o.retryMs ?? 30_000);
  retry.unref();
  return () => {
    clearInterval(retry);
    off();
  };
}

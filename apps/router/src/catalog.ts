import type { RouterConfig, RouterModelConfig } from '@llmgw/config';
import type { EndpointSource } from '@llmgw/endpoints';
import { adapterOfName, type AdapterRef, type PlacementAdapters } from './adapters';

/** What the catalog view tells of models beyond their names (docs/models.md, "Providers"). */
export interface PlacementModels {
  fallbacksOf(model: string): readonly string[] | undefined;
  /** Catalogued models served by a provider. */
  providers(): ReadonlyMap<string, unknown>;
}

/**
 * Models, aliases, fallbacks and per-model routing profiles from config,
 * plus every model the endpoint source serves (static endpoints declare
 * their model implicitly).
 */
export class ModelCatalog {
  private readonly configured = new Map<string, RouterModelConfig>();
  private readonly aliases = new Map<string, string>();
  /** Adapters of configured base models by adapter name (docs/models.md, "Adapters"). */
  private readonly adapters = new Map<string, AdapterRef>();

  /**
   * `placement`: the catalog view the placement-scheduler publishes (on-demand
   * models are catalogued before they have any endpoint).
   */
  constructor(
    cfg: Pick<RouterConfig, 'models' | 'model_aliases'>,
    private readonly source: EndpointSource,
    private readonly placement?: { resolve(name: string): string | undefined } & Partial<PlacementAdapters & PlacementModels>,
  ) {
    for (const m of cfg.models) this.configured.set(m.name, m);
    for (const m of cfg.models)
      m.adapters.forEach((a, id) => this.adapters.set(a.name, { base: m.name, name: a.name, id, scale: a.scale, ...(a.path ? { path: a.path } : {}) }));
    for (const m of cfg.models) for (const a of m.aliases) this.aliases.set(a, m.name);
    for (const [a, target] of Object.entries(cfg.model_aliases)) this.aliases.set(a, target);
  }

  /** Canonical model name for a requested name or alias; undefined when unknown. */
  resolve(name: string): string | undefined {
    if (this.configured.has(name) || this.source.endpoints(name).length > 0) return name;
    const target = this.aliases.get(name);
    if (target !== undefined && (this.configured.has(target) || this.source.endpoints(target).length > 0)) return target;
    return this.placement?.resolve(name);
  }

  /**
   * The base model and adapter a requested name names — `<base>:<adapter>` (the base by name or
   * alias) or the adapter's own name — from config, else the placement-scheduler's catalog view;
   * undefined when it names no adapter.
   */
  adapter(name: string): AdapterRef | undefined {
    if (this.configured.has(name)) return undefined;
    return adapterOfName(
      name,
      (n) => this.adapters.get(n) ?? this.placement?.adapterOf?.(n),
      (n) => this.resolve(n),
    );
  }

  /** The model followed by its fallbacks (the router's own `models`, else the catalog view's), in order, without repeats. */
  chain(model: string): string[] {
    const out = [model];
    const own = this.configured.get(model)?.fallbacks ?? [];
    for (const f of own.length ? own : (this.placement?.fallbacksOf?.(model) ?? [])) {
      const r = this.resolve(f) ?? f;
      if (!out.includes(r)) out.push(r);
    }
    return out;
  }

  profileOf(model: string): string | undefined {
    return this.configured.get(model)?.routing_profile;
  }

  /**
   * Every servable name for /v1/models: configured models, served models, the catalog view's provider
   * models, aliases, and adapters with their base (`parent`).
   */
  list(): Array<{ id: string; aliasOf?: string; parent?: string }> {
    const names = new Set<string>([...this.configured.keys(), ...this.source.models(), ...(this.placement?.providers?.().keys() ?? [])]);
    const out: Array<{ id: string; aliasOf?: string; parent?: string }> = [...names].sort().map((id) => ({ id }));
    for (const [a, target] of [...this.aliases].sort()) if (!names.has(a) && names.has(target)) out.push({ id: a, aliasOf: target });
    const adapters = new Map(this.adapters);
    for (const ref of this.placement?.adapters?.() ?? []) if (!adapters.has(ref.name)) adapters.set(ref.name, ref);
    for (const [a, ref] of [...adapters].sort()) if (!names.has(a) && names.has(ref.base)) out.push({ id: a, parent: ref.base });
    return out;
  }
}

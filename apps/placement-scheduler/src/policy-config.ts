import type { Catalog, PlacementSchedulerConfig } from '@llmgw/config';
import type { PolicyConfig } from '@llmgw/placement';

/** The placement policy of one catalog and scheduler config: projects and quotas from the catalog, the facility from the config. */
export function policyConfigOf(catalog: Catalog, cfg: Pick<PlacementSchedulerConfig, 'facility'>): PolicyConfig {
  const f = cfg.facility;
  return {
    projects: catalog.projects,
    quotas: catalog.quotas,
    facility: { held: f.held, budgets: f.budgets, spread: f.spread, defaultGpuWatts: f.default_gpu_watts },
  };
}

import { createEnabledTenancy } from './enabled';
import type { TenancyConfig, TenancyDeps, TenancyHooks } from './types';

export type { Reservation, TenancyConfig, TenancyDeps, TenancyHooks } from './types';

/** Tenancy as configured: the enabled implementation (enabled.ts) or the no-op one. */
export function createTenancy(cfg: TenancyConfig, deps: TenancyDeps): TenancyHooks {
  if (cfg.tenancy.enabled) return createEnabledTenancy(cfg, deps);
  return createDisabledTenancy();
}

/** The disabled implementation: no auth, no limits, usage dropped. */
export function createDisabledTenancy(): TenancyHooks {
  let seq = 0;
  return {
    enabled: false,
    async authenticate() {
      return undefined;
    },
    async reserve(_p, model) {
      return { id: `r-${++seq}`, model };
    },
    async rebind(r, model) {
      return { id: r.id, model };
    },
    settle() {},
    recordUsage() {},
    async close() {},
  };
}

import type { Principal, accountingV1 } from '@llmgw/contracts';

/**
 * Principal → wire (accounting answering ResolveKey). An unset band travels
 * as '' and an unset routing profile / expiry as ''/0 (proto3 defaults).
 */
export function principalToWire(p: Principal): accountingV1.ResolvedKey {
  return {
    keyId: p.keyId,
    keyPrefix: p.keyPrefix,
    projectId: p.projectId,
    teamId: p.teamId,
    orgId: p.orgId,
    band: p.band,
    routingProfile: p.routingProfile ?? '',
    expiresAtMs: p.expiresAt ?? 0,
    limits: {
      rpm: p.limits.rpm,
      tpm: p.limits.tpm,
      budgets: p.limits.budgets,
      modelsRestricted: p.limits.allowedModels !== undefined,
      allowedModels: p.limits.allowedModels ?? [],
    },
  };
}

/**
 * Wire → Principal: the one mapping every reader of a ResolvedKey uses
 * (router, accounting, ctl). A key and project without a band ('' on the wire)
 * get `defaultBand` (the router's `default_band`); a budget period other than
 * "day" is "month" (accounting's default when a limit names none).
 */
export function principalFromWire(r: accountingV1.ResolvedKey__Output, defaultBand: string): Principal {
  const l = r.limits;
  return {
    keyId: r.keyId,
    keyPrefix: r.keyPrefix,
    projectId: r.projectId,
    teamId: r.teamId,
    orgId: r.orgId,
    band: r.band || defaultBand,
    ...(r.routingProfile ? { routingProfile: r.routingProfile } : {}),
    ...(r.expiresAtMs ? { expiresAt: r.expiresAtMs } : {}),
    limits: {
      rpm: (l?.rpm ?? []).map((x) => ({ scope: x.scope, limit: x.limit })),
      tpm: (l?.tpm ?? []).map((x) => ({ scope: x.scope, limit: x.limit })),
      budgets: (l?.budgets ?? []).map((x) => ({ scope: x.scope, limitMicros: x.limitMicros, period: x.period === 'day' ? 'day' : 'month' })),
      ...(l?.modelsRestricted ? { allowedModels: [...l.allowedModels] } : {}),
    },
  };
}

import type { ResolvedLimits } from '@llmgw/contracts';

export type ScopeType = 'org' | 'team' | 'project' | 'key';
export type BudgetPeriod = 'day' | 'month';

/** The limits one level of the tenancy tree sets (docs/accounting.md#limits-and-how-they-resolve); undefined = no limit there. */
export interface LevelLimits {
  scopeType: ScopeType;
  scopeId: string;
  rpm?: number;
  tpm?: number;
  budgetMicros?: number;
  budgetPeriod?: BudgetPeriod;
  /** undefined = every model; [] = none. */
  allowedModels?: string[];
}

/** The scope string used in counters and resolved limits: `<type>:<id>`. */
export function scopeKey(type: ScopeType, id: string): string {
  return `${type}:${id}`;
}

/**
 * Intersects allowlists. Absent lists are ignored (they allow everything);
 * an empty list allows nothing, so it empties the result.
 */
export function intersectAllowlists(lists: Array<string[] | undefined>): string[] | undefined {
  let acc: Set<string> | undefined;
  for (const l of lists) {
    if (l === undefined) continue;
    acc = acc === undefined ? new Set(l) : new Set(l.filter((m) => acc!.has(m)));
  }
  return acc === undefined ? undefined : [...acc].sort();
}

/**
 * Resolves a key's chain (key → project → team → org, any order) into the
 * limits every request is checked against: every level that sets a limit is
 * kept, so the effective limit is the most restrictive one, and a lower level
 * can never raise what a higher one set.
 */
export function resolveLimits(chain: LevelLimits[]): ResolvedLimits {
  const out: ResolvedLimits = { rpm: [], tpm: [], budgets: [] };
  for (const l of chain) {
    const scope = scopeKey(l.scopeType, l.scopeId);
    if (l.rpm !== undefined && l.rpm !== null) out.rpm.push({ scope, limit: l.rpm });
    if (l.tpm !== undefined && l.tpm !== null) out.tpm.push({ scope, limit: l.tpm });
    if (l.budgetMicros !== undefined && l.budgetMicros !== null) {
      out.budgets.push({ scope, limitMicros: l.budgetMicros, period: l.budgetPeriod ?? 'month' });
    }
  }
  const allowed = intersectAllowlists(chain.map((l) => l.allowedModels ?? undefined));
  if (allowed !== undefined) out.allowedModels = allowed;
  return out;
}

/** The single tightest figure of each kind (for display); undefined = unlimited. */
export function effectiveLimits(r: ResolvedLimits): { rpm?: number; tpm?: number; budgetMicrosPerDay?: number; budgetMicrosPerMonth?: number } {
  const min = (xs: number[]) => (xs.length ? Math.min(...xs) : undefined);
  return {
    rpm: min(r.rpm.map((x) => x.limit)),
    tpm: min(r.tpm.map((x) => x.limit)),
    budgetMicrosPerDay: min(r.budgets.filter((b) => b.period === 'day').map((b) => b.limitMicros)),
    budgetMicrosPerMonth: min(r.budgets.filter((b) => b.period === 'month').map((b) => b.limitMicros)),
  };
}

/** Whether resolved limits allow a model. */
export function isModelAllowed(r: ResolvedLimits, model: string): boolean {
  return r.allowedModels === undefined || r.allowedModels.includes(model);
}

/**
 * What `ctl capacity apply` sets from a model's stored capacity profiles
 * (docs/capacity.md "Applying a profile"): per launch profile, the router's
 * weight in proportion to its MaxConcurrencyAtSLO (the largest 100, the
 * catalog's default weight) and admission's target waiting per replica (the
 * engine queue it carried while meeting the SLO, at least 1); for the model,
 * the autoscaler's target (the smallest of those). Pure.
 */

export interface MeasuredProfile {
  profile: string;
  gpuClass: string;
  maxConcurrencyAtSlo: number;
  engineWaitingAtSlo: number;
}

export interface AppliedProfile {
  profile: string;
  weight: number;
  targetWaitingPerReplica: number;
  maxConcurrencyAtSlo: number;
  gpuClass: string;
}

export interface CapacityToApply {
  profiles: AppliedProfile[];
  targetWaitingPerReplica: number;
  /** Catalog profiles without a stored measurement: they keep the catalog's weight. */
  unmeasured: string[];
  /** Stored profiles the catalog no longer has (not applied). */
  notInCatalog: string[];
}

/** The weight of the largest measured profile: the catalog's default weight, so measured and unmeasured profiles stay comparable. */
export const FULL_WEIGHT = 100;

/** undefined when no catalog profile has a measurement with capacity. */
export function capacityToApply(measured: readonly MeasuredProfile[], catalogProfiles: readonly string[]): CapacityToApply | undefined {
  const usable = measured.filter((m) => catalogProfiles.includes(m.profile) && m.maxConcurrencyAtSlo > 0);
  if (!usable.length) return undefined;
  const top = Math.max(...usable.map((m) => m.maxConcurrencyAtSlo));
  const profiles = usable.map((m) => ({
    profile: m.profile,
    weight: Math.max(1, Math.round((FULL_WEIGHT * m.maxConcurrencyAtSlo) / top)),
    targetWaitingPerReplica: Math.max(1, m.engineWaitingAtSlo),
    maxConcurrencyAtSlo: m.maxConcurrencyAtSlo,
    gpuClass: m.gpuClass,
  }));
  return {
    profiles,
    targetWaitingPerReplica: Math.min(...profiles.map((p) => p.targetWaitingPerReplica)),
    unmeasured: catalogProfiles.filter((p) => !usable.some((m) => m.profile === p)),
    notInCatalog: measured.filter((m) => !catalogProfiles.includes(m.profile)).map((m) => m.profile),
  };
}

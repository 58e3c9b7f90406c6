import type { controlV1 } from '@llmgw/contracts';
import type { ControlClient } from '@llmgw/control-rpc';

/** At most this many models are explained per fleet page view (the rest are listed by name). */
const MAX_EXPLAINED = 10;

const reasonText = (r: string) =>
  r
    .replace(/^REJECT_REASON_/, '')
    .toLowerCase()
    .replace(/_/g, ' ');

export interface PlacementFailure {
  model: string;
  ready: number;
  desired: number;
  /** Per profile: its first failed constraint, from ExplainPlacement (docs/placement.md, "Reading explain-placement"). */
  profiles: { profile: string; reason: string; detail: string }[];
}

/**
 * The fleet page's placement failures: every model with fewer ready replicas
 * than it wants, each (up to MAX_EXPLAINED) with ExplainPlacement's reasons
 * per profile — the same answer `llmgw ctl explain-placement` prints.
 */
export async function placementFailures(control: ControlClient): Promise<{ failures: PlacementFailure[]; unexplained: string[] }> {
  const { models } = await control.unary<controlV1.ListModelsResponse__Output>('ListModels', {});
  const short = models.filter((m) => m.replicasReady < m.replicasDesired);
  const explained = await Promise.all(
    short.slice(0, MAX_EXPLAINED).map(async (m) => {
      const e = await control
        .unary<controlV1.ExplainPlacementResponse__Output>('ExplainPlacement', { model: m.name })
        .catch((err: Error) => ({ profiles: [], error: err.message }) as never);
      const profiles = (e as controlV1.ExplainPlacementResponse__Output).profiles.map((p) => ({
        profile: p.profile,
        reason: reasonText(String(p.reason)),
        detail: p.detail,
      }));
      const error = (e as { error?: string }).error;
      return {
        model: m.name,
        ready: m.replicasReady,
        desired: m.replicasDesired,
        profiles: error ? [{ profile: '-', reason: 'explain failed', detail: error }] : profiles,
      };
    }),
  );
  return { failures: explained, unexplained: short.slice(MAX_EXPLAINED).map((m) => m.name) };
}

import type { controlV1 } from '@llmgw/contracts';
import { time } from '../format';

/**
 * The autoscaler's lines under `ctl models` and `ctl replicas` (docs/capacity.md):
 * "demo: scaling up: 38 waiting per replica over 60 s, target 8 (1 -> 2) at …".
 */
export function autoscaleNotes(models: readonly controlV1.Model__Output[]): string {
  const lines = models
    .filter((m) => m.autoscale)
    .map((m) => {
      const a = m.autoscale!;
      const move = a.action === 'hold' ? `${a.to} replica${a.to === 1 ? '' : 's'}` : `${a.from} -> ${a.to}`;
      const last = a.action === 'hold' && a.lastChange ? `; last change ${time(Number(a.lastChangeMs))}: ${a.lastChange}` : '';
      return `  ${m.name}: ${a.reason} (${move}) at ${time(Number(a.atMs))}${last}`;
    });
  return lines.length ? `\nautoscaler:\n${lines.join('\n')}` : '';
}

/**
 * The capacity applied from measured profiles under `ctl models`
 * (docs/capacity.md "Applying a profile"): "cap: big weight 100 (8 at SLO), …".
 */
export function appliedNotes(models: readonly controlV1.Model__Output[]): string {
  const lines = models
    .filter((m) => m.appliedCapacity)
    .map((m) => {
      const a = m.appliedCapacity!;
      const ps = a.profiles.map((p) => `${p.profile} weight ${p.weight} (${p.maxConcurrencyAtSlo} at SLO), target waiting ${p.targetWaitingPerReplica}`);
      return `  ${m.name}: ${ps.join('; ')}; autoscaler target ${a.targetWaitingPerReplica} — applied ${time(Number(a.appliedAtMs))} by ${a.appliedBy || '-'}`;
    });
  return lines.length ? `\ncapacity applied (ctl capacity apply):\n${lines.join('\n')}` : '';
}

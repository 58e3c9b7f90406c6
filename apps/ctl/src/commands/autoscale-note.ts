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

import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, SchedRequest, Scorer } from '../types';
import { scoreScraped, scrapedParams } from './common';

const schema = z.object({ ...scrapedParams }).strict();
export type LoadScorerParams = z.output<typeof schema>;

/**
 * `1 − norm(running / drain_rate)` (AIBrix, docs/scheduling.md#scorers): the time the current
 * batch takes to drain, so a slow replica with the same `running` scores lower.
 * An endpoint with no known drain rate is assumed to drain at the mean rate
 * of those that have one; when none has one, `running` alone is compared.
 * Normalised against the largest value among the candidates.
 */
export class LoadScorer implements Scorer {
  readonly type = 'load-scorer';
  constructor(
    readonly name: string,
    readonly params: LoadScorerParams,
  ) {}
  score(_req: SchedRequest, eps: readonly EndpointView[]): Map<string, number> {
    let rateSum = 0;
    let rateCount = 0;
    for (const ep of eps) {
      if (ep.drainRate !== undefined && ep.drainRate > 0 && Number.isFinite(ep.drainRate)) {
        rateSum += ep.drainRate;
        rateCount++;
      }
    }
    const meanRate = rateCount > 0 ? rateSum / rateCount : 1;
    const drain = (ep: EndpointView): number => {
      const running = Math.max(0, ep.stats?.running ?? 0);
      const rate = ep.drainRate !== undefined && ep.drainRate > 0 && Number.isFinite(ep.drainRate) ? ep.drainRate : meanRate;
      return running / rate;
    };
    let max = 0;
    for (const ep of eps) if (ep.stats) max = Math.max(max, drain(ep));
    return scoreScraped(eps, this.params, (ep) => (!ep.stats ? undefined : max > 0 ? 1 - drain(ep) / max : 1));
  }
}

export const loadScorerFactory: PluginFactory<'scorer'> = {
  kind: 'scorer',
  description: 'drain time: 1 − norm(running / drain_rate)',
  create: (name, params) => new LoadScorer(name, parsePluginParams('load-scorer', name, schema, params)),
};

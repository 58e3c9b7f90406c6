import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, SchedRequest } from '../types';
import { ArrayScorer, scrapedParams, scrapedScore } from './common';

const schema = z.object({ ...scrapedParams }).strict();
export type LoadScorerParams = z.output<typeof schema>;

/**
 * `1 − norm(running / drain_rate)` (AIBrix, docs/scheduling.md#scorers): the time the current
 * batch takes to drain, so a slow replica with the same `running` scores lower.
 * An endpoint with no known drain rate is assumed to drain at the mean rate
 * of those that have one; when none has one, `running` alone is compared.
 * Normalised against the largest value among the candidates.
 */
export class LoadScorer extends ArrayScorer {
  readonly type = 'load-scorer';
  constructor(
    readonly name: string,
    readonly params: LoadScorerParams,
  ) {
    super();
  }
  scoreInto(_req: SchedRequest, eps: readonly EndpointView[], out: Float64Array): undefined {
    let rateSum = 0;
    let rateCount = 0;
    for (const ep of eps) {
      if (ep.drainRate !== undefined && ep.drainRate > 0 && Number.isFinite(ep.drainRate)) {
        rateSum += ep.drainRate;
        rateCount++;
      }
    }
    const meanRate = rateCount > 0 ? rateSum / rateCount : 1;
    // out[i] holds the drain time first, then the score.
    let max = 0;
    for (let i = 0; i < eps.length; i++) {
      const ep = eps[i];
      const rate = ep.drainRate !== undefined && ep.drainRate > 0 && Number.isFinite(ep.drainRate) ? ep.drainRate : meanRate;
      out[i] = Math.max(0, ep.stats?.running ?? 0) / rate;
      if (ep.stats) max = Math.max(max, out[i]);
    }
    for (let i = 0; i < eps.length; i++) out[i] = scrapedScore(eps[i], !eps[i].stats ? undefined : max > 0 ? 1 - out[i] / max : 1, this.params);
    return undefined;
  }
}

export const loadScorerFactory: PluginFactory<'scorer'> = {
  kind: 'scorer',
  description: 'drain time: 1 − norm(running / drain_rate)',
  create: (name, params) => new LoadScorer(name, parsePluginParams('load-scorer', name, schema, params)),
};

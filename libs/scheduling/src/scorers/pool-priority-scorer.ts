import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, SchedRequest, Scorer } from '../types';
import { scoreEach } from './common';

const schema = z.object({}).strict();

/**
 * `(priority − min) / (max − min)` over the candidates; 1 for all when they
 * share a priority. Stage 1 already narrows to one priority tier, so inside
 * `schedule()` this only matters for custom pipelines that score across pools.
 */
export class PoolPriorityScorer implements Scorer {
  readonly type = 'pool-priority-scorer';
  constructor(readonly name: string) {}
  score(_req: SchedRequest, eps: readonly EndpointView[]): Map<string, number> {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const ep of eps) {
      min = Math.min(min, ep.poolPriority);
      max = Math.max(max, ep.poolPriority);
    }
    return scoreEach(eps, (ep) => (max > min ? (ep.poolPriority - min) / (max - min) : 1));
  }
}

export const poolPriorityScorerFactory: PluginFactory<'scorer'> = {
  kind: 'scorer',
  description: 'pool priority, normalised over the candidates',
  create: (name, params) => {
    parsePluginParams('pool-priority-scorer', name, schema, params);
    return new PoolPriorityScorer(name);
  },
};

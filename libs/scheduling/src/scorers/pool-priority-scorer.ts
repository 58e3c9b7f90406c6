import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, SchedRequest } from '../types';
import { ArrayScorer } from './common';

const schema = z.object({}).strict();

/**
 * `(priority − min) / (max − min)` over the candidates; 1 for all when they
 * share a priority. Stage 1 already narrows to one priority tier, so inside
 * `schedule()` this only matters for custom pipelines that score across pools.
 */
export class PoolPriorityScorer extends ArrayScorer {
  readonly type = 'pool-priority-scorer';
  constructor(readonly name: string) {
    super();
  }
  scoreInto(_req: SchedRequest, eps: readonly EndpointView[], out: Float64Array): undefined {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const ep of eps) {
      min = Math.min(min, ep.poolPriority);
      max = Math.max(max, ep.poolPriority);
    }
    for (let i = 0; i < eps.length; i++) out[i] = max > min ? (eps[i].poolPriority - min) / (max - min) : 1;
    return undefined;
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

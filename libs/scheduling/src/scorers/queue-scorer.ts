import { DEFAULT_TARGET_WAITING_PER_REPLICA } from '@llmgw/contracts';
import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, SchedRequest } from '../types';
import { ArrayScorer, scrapedParams, scrapedScore } from './common';

const schema = z
  .object({
    /** Engine queue depth at which the score reaches 0 (`target_waiting_per_replica`, docs/scheduling.md#scorers). */
    target_waiting: z.number().positive().default(DEFAULT_TARGET_WAITING_PER_REPLICA),
    ...scrapedParams,
  })
  .strict();
export type QueueScorerParams = z.output<typeof schema>;

/** `1 − min(1, waiting / target_waiting)` (docs/scheduling.md#scorers). */
export class QueueScorer extends ArrayScorer {
  readonly type = 'queue-scorer';
  constructor(
    readonly name: string,
    readonly params: QueueScorerParams,
  ) {
    super();
  }
  scoreInto(_req: SchedRequest, eps: readonly EndpointView[], out: Float64Array): undefined {
    const p = this.params;
    for (let i = 0; i < eps.length; i++) {
      const st = eps[i].stats;
      out[i] = scrapedScore(eps[i], st ? 1 - Math.min(1, Math.max(0, st.waiting) / p.target_waiting) : undefined, p);
    }
    return undefined;
  }
}

export const queueScorerFactory: PluginFactory<'scorer'> = {
  kind: 'scorer',
  description: 'engine queue depth: 1 − min(1, waiting / target_waiting)',
  create: (name, params) => new QueueScorer(name, parsePluginParams('queue-scorer', name, schema, params)),
};

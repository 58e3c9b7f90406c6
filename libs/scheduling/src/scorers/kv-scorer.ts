import { DEFAULT_KV_CEILING } from '@llmgw/contracts';
import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, SchedRequest } from '../types';
import { ArrayScorer, scrapedParams, scrapedScore } from './common';

const schema = z
  .object({
    /** KV occupancy above which the score is 0 (the hard penalty; `kv_ceiling`, docs/scheduling.md#scorers). */
    ceiling: z.number().gt(0).max(1).default(DEFAULT_KV_CEILING),
    ...scrapedParams,
  })
  .strict();
export type KvScorerParams = z.output<typeof schema>;

/** `1 − kv_usage`, and 0 above `ceiling` (docs/scheduling.md#scorers). */
export class KvScorer extends ArrayScorer {
  readonly type = 'kv-scorer';
  constructor(
    readonly name: string,
    readonly params: KvScorerParams,
  ) {
    super();
  }
  scoreInto(_req: SchedRequest, eps: readonly EndpointView[], out: Float64Array): undefined {
    const p = this.params;
    for (let i = 0; i < eps.length; i++) {
      const kv = eps[i].stats?.kvUsage;
      out[i] = scrapedScore(eps[i], kv === undefined || !Number.isFinite(kv) ? undefined : kv > p.ceiling ? 0 : 1 - Math.max(0, kv), p);
    }
    return undefined;
  }
}

export const kvScorerFactory: PluginFactory<'scorer'> = {
  kind: 'scorer',
  description: 'KV occupancy: 1 − kv_usage, 0 above ceiling',
  create: (name, params) => new KvScorer(name, parsePluginParams('kv-scorer', name, schema, params)),
};

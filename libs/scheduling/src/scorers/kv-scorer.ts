import { DEFAULT_KV_CEILING } from '@llmgw/contracts';
import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, SchedRequest, Scorer } from '../types';
import { scoreScraped, scrapedParams } from './common';

const schema = z
  .object({
    /** KV occupancy above which the score is 0 (the hard penalty; `kv_ceiling`, docs/scheduling.md#scorers). */
    ceiling: z.number().gt(0).max(1).default(DEFAULT_KV_CEILING),
    ...scrapedParams,
  })
  .strict();
export type KvScorerParams = z.output<typeof schema>;

/** `1 − kv_usage`, and 0 above `ceiling` (docs/scheduling.md#scorers). */
export class KvScorer implements Scorer {
  readonly type = 'kv-scorer';
  constructor(
    readonly name: string,
    readonly params: KvScorerParams,
  ) {}
  score(_req: SchedRequest, eps: readonly EndpointView[]): Map<string, number> {
    return scoreScraped(eps, this.params, (ep) => {
      const kv = ep.stats?.kvUsage;
      if (kv === undefined || !Number.isFinite(kv)) return undefined;
      return kv > this.params.ceiling ? 0 : 1 - Math.max(0, kv);
    });
  }
}

export const kvScorerFactory: PluginFactory<'scorer'> = {
  kind: 'scorer',
  description: 'KV occupancy: 1 − kv_usage, 0 above ceiling',
  create: (name, params) => new KvScorer(name, parsePluginParams('kv-scorer', name, schema, params)),
};

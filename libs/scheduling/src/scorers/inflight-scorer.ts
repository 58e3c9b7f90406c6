import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, SchedRequest } from '../types';
import { ArrayScorer } from './common';

const schema = z
  .object({
    /**
     * Inflight requests (per 100 units of endpoint weight) at which the score
     * reaches 0. Omitted: normalise against the busiest candidate.
     */
    cap: z.number().positive().optional(),
  })
  .strict();
export type InflightScorerParams = z.output<typeof schema>;

/**
 * `1 − norm(router_inflight)` (docs/scheduling.md#scorers). Inflight is this router's own
 * count, current to the request, so it is the only signal that separates
 * decisions taken within one scrape interval. It is divided by the
 * endpoint's weight / 100 so a bigger replica may carry proportionally more.
 */
export class InflightScorer extends ArrayScorer {
  readonly type = 'inflight-scorer';
  constructor(
    readonly name: string,
    readonly params: InflightScorerParams,
  ) {
    super();
  }
  scoreInto(_req: SchedRequest, eps: readonly EndpointView[], out: Float64Array): undefined {
    let denom = this.params.cap ?? 0;
    if (this.params.cap === undefined) for (const ep of eps) denom = Math.max(denom, perWeight(ep));
    for (let i = 0; i < eps.length; i++) out[i] = denom > 0 ? 1 - Math.min(1, perWeight(eps[i]) / denom) : 1;
    return undefined;
  }
}

function perWeight(ep: EndpointView): number {
  const w = ep.weight > 0 ? ep.weight : 100;
  return (Math.max(0, ep.inflight) * 100) / w;
}

export const inflightScorerFactory: PluginFactory<'scorer'> = {
  kind: 'scorer',
  description: "router's own inflight count per unit weight, normalised; always on",
  create: (name, params) => new InflightScorer(name, parsePluginParams('inflight-scorer', name, schema, params)),
};

import { z } from 'zod';
import { PrefixIndex } from '@llmgw/prefix';
import { parsePluginParams, type PluginFactory } from '../../registry';
import type { EndpointView, SchedRequest, ScoreDetail, ScoreInfo } from '../../types';
import { ArrayScorer, scoreMap } from '../common';
import type { PrefixDecision } from '../../decisions';

const schema = z
  .object({
    /** Below this match ratio the prefix counts as a miss and load decides (docs/scheduling.md#prefix-scorer-tiers-1-and-2). */
    cache_threshold: z.number().min(0).max(1).default(0.3),
    /** The balance guard fires when max_load − min_load > this … */
    balance_abs_threshold: z.number().min(0).default(16),
    /** … and max_load > min_load × this (both must hold; docs/prefix.md). */
    balance_rel_threshold: z.number().min(1).default(1.5),
    /**
     * The guard also fires when the best match would hold more than this many times its fair share
     * ((Σ load + 1) / candidates, this request counted) and at least 2 more than the least loaded:
     * at a few requests per replica the absolute gap never opens (docs/scheduling.md#prefix-scorer-tiers-1-and-2). 0 turns it off.
     */
    balance_fair_factor: z.number().min(0).default(3),
    /**
     * What "load" means for the guard and the min-load choice: the router's own
     * inflight, the engine's scraped running + waiting (the view every router
     * shares), or the larger of the two.
     */
    load: z.enum(['inflight', 'engine', 'max']).default('max'),
  })
  .strict();
export type PrefixScorerParams = z.output<typeof schema>;

/**
 * Tiers 1 and 2 of docs/prefix.md as one scorer. Decision, in this order:
 *
 * 1. the request has no prompt, or no tier knows this model/prompt → `no_tree`;
 * 2. max_load − min_load > balance_abs_threshold and max_load > min_load ×
 *    balance_rel_threshold, or the best match is hot (over balance_fair_factor ×
 *    its fair share and 2 over the least loaded) → `load_balance_override`;
 * 3. the best match is a replica that is not a candidate now (cooling down,
 *    draining, gone, already tried) and no candidate matches as well → `stale`;
 * 4. the best candidate's match ratio < cache_threshold → `cache_miss_min_load`;
 * 5. otherwise `cache_hit`: each candidate scores its match ratio
 *    (`matched_blocks / prompt_blocks`, docs/scheduling.md#scorers).
 *
 * In cases 1–4 the prefix is ignored and the score is `1 − load / max_load`,
 * so the least loaded replica scores highest. After the pick, `picked()`
 * records the prompt in the index (and through it in every router's tree).
 */
export class PrefixScorer extends ArrayScorer {
  readonly type = 'prefix-scorer';
  /** Each candidate's match ratio during `scoreInto` (scratch; `out` holds the loads meanwhile). */
  private ratios = new Float64Array(16);

  constructor(
    readonly name: string,
    readonly params: PrefixScorerParams,
    readonly index: PrefixIndex,
  ) {
    super();
  }

  scoreDetailed(req: SchedRequest, eps: readonly EndpointView[]): ScoreDetail {
    const out = new Float64Array(eps.length);
    const info = this.scoreInto(req, eps, out);
    return { scores: scoreMap(eps, out), ...info };
  }

  scoreInto(req: SchedRequest, eps: readonly EndpointView[], out: Float64Array): ScoreInfo {
    const n = eps.length;
    if (n === 0) return result('no_healthy_worker', 0);
    // out[i] holds each candidate's load until the decision is known.
    let max = -Infinity;
    let min = Infinity;
    for (let i = 0; i < n; i++) {
      const l = this.loadOf(eps[i]);
      out[i] = l;
      if (l > max) max = l;
      if (l < min) min = l;
    }
    const lookup = req.prompt ? this.index.lookup(req.model, req.prompt) : undefined;
    if (!lookup) return byLoad(out, n, max, result('no_tree', 0));

    if (this.ratios.length < n) this.ratios = new Float64Array(2 * n);
    const ratios = this.ratios;
    let best = -1;
    let bestRatio = 0;
    let bestLoad = Infinity;
    for (let i = 0; i < n; i++) {
      const r = lookup.ratios.get(eps[i].id) ?? 0;
      ratios[i] = r;
      if (r > bestRatio || (r === bestRatio && r > 0 && out[i] < bestLoad)) {
        best = i;
        bestRatio = r;
        bestLoad = out[i];
      }
    }

    if (max - min > this.params.balance_abs_threshold && max > min * this.params.balance_rel_threshold) {
      return byLoad(out, n, max, result('load_balance_override', bestRatio));
    }
    if (best >= 0 && bestRatio >= this.params.cache_threshold && this.hot(bestLoad, min, out, n))
      return byLoad(out, n, max, result('load_balance_override', bestRatio));
    let bestAll = 0;
    for (const r of lookup.ratios.values()) if (r > bestAll) bestAll = r;
    if (bestAll >= this.params.cache_threshold && bestAll > bestRatio) return byLoad(out, n, max, result('stale', bestRatio));
    if (best < 0 || bestRatio < this.params.cache_threshold) return byLoad(out, n, max, result('cache_miss_min_load', bestRatio));

    for (let i = 0; i < n; i++) out[i] = ratios[i];
    return result('cache_hit', bestRatio, eps[best].id);
  }

  picked(req: SchedRequest, endpoint: EndpointView): void {
    if (req.prompt) this.index.record(req.model, req.prompt, endpoint.id);
  }

  /** The fair-share guard: the best match, taking this request, would be over `balance_fair_factor` × fair share and 2 over the least loaded. */
  private hot(load: number, min: number, loads: Float64Array, n: number): boolean {
    const f = this.params.balance_fair_factor;
    if (f <= 0 || load - min < 2) return false;
    let total = 0;
    for (let i = 0; i < n; i++) total += loads[i];
    return load + 1 > (f * (total + 1)) / n;
  }

  private loadOf(e: EndpointView): number {
    const engine = (e.stats?.running ?? 0) + (e.stats?.waiting ?? 0);
    switch (this.params.load) {
      case 'inflight':
        return e.inflight;
      case 'engine':
        return engine;
      default:
        return Math.max(e.inflight, engine);
    }
  }
}

/** "By load": `1 − load / max_load` over the loads in `out` (the least loaded scores 1). */
function byLoad(out: Float64Array, n: number, max: number, info: ScoreInfo): ScoreInfo {
  for (let i = 0; i < n; i++) out[i] = max > 0 ? 1 - out[i] / max : 1;
  return info;
}

function result(decision: PrefixDecision, matchRatio: number, target?: string): ScoreInfo {
  return { cacheDecision: decision, target, prefix: { decision, matchRatio } };
}

/**
 * A `prefix-scorer` factory over one index. Every profile built from the same
 * registry shares it, so `chat` and `batch` learn from each other's requests.
 */
export function prefixScorerFactory(index: PrefixIndex = new PrefixIndex()): PluginFactory<'scorer'> {
  return {
    kind: 'scorer',
    description: 'tiers 1–2 prefix affinity: match ratio against the approximate tree or the KV event index, with the balance guard',
    create: (name, params) => new PrefixScorer(name, parsePluginParams('prefix-scorer', name, schema, params), index),
  };
}

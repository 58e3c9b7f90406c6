import { z } from 'zod';
import { PrefixIndex } from '@llmgw/prefix';
import { parsePluginParams, type PluginFactory } from '../../registry';
import type { EndpointView, SchedRequest, ScoreDetail, Scorer } from '../../types';
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
export class PrefixScorer implements Scorer {
  readonly type = 'prefix-scorer';

  constructor(
    readonly name: string,
    readonly params: PrefixScorerParams,
    readonly index: PrefixIndex,
  ) {}

  score(req: SchedRequest, eps: readonly EndpointView[]): Map<string, number> {
    return this.scoreDetailed(req, eps).scores;
  }

  scoreDetailed(req: SchedRequest, eps: readonly EndpointView[]): ScoreDetail {
    if (eps.length === 0) return this.result(new Map(), 'no_healthy_worker', 0);
    const loads = eps.map((e) => this.loadOf(e));
    const byLoad = (): Map<string, number> => {
      const max = Math.max(...loads);
      const out = new Map<string, number>();
      eps.forEach((e, i) => out.set(e.id, max > 0 ? 1 - loads[i] / max : 1));
      return out;
    };
    const lookup = req.prompt ? this.index.lookup(req.model, req.prompt) : undefined;
    if (!lookup) return this.result(byLoad(), 'no_tree', 0);

    let bestCand: EndpointView | undefined;
    let bestRatio = 0;
    let bestLoad = Infinity;
    eps.forEach((e, i) => {
      const r = lookup.ratios.get(e.id) ?? 0;
      if (r > bestRatio || (r === bestRatio && r > 0 && loads[i] < bestLoad)) {
        bestCand = e;
        bestRatio = r;
        bestLoad = loads[i];
      }
    });

    const max = Math.max(...loads);
    const min = Math.min(...loads);
    if (max - min > this.params.balance_abs_threshold && max > min * this.params.balance_rel_threshold) {
      return this.result(byLoad(), 'load_balance_override', bestRatio);
    }
    if (bestCand !== undefined && bestRatio >= this.params.cache_threshold && this.hot(bestLoad, min, loads))
      return this.result(byLoad(), 'load_balance_override', bestRatio);
    let bestAll = 0;
    for (const r of lookup.ratios.values()) if (r > bestAll) bestAll = r;
    if (bestAll >= this.params.cache_threshold && bestAll > bestRatio) return this.result(byLoad(), 'stale', bestRatio);
    if (bestCand === undefined || bestRatio < this.params.cache_threshold) return this.result(byLoad(), 'cache_miss_min_load', bestRatio);

    const scores = new Map<string, number>();
    for (const e of eps) scores.set(e.id, lookup.ratios.get(e.id) ?? 0);
    return this.result(scores, 'cache_hit', bestRatio, bestCand.id);
  }

  picked(req: SchedRequest, endpoint: EndpointView): void {
    if (req.prompt) this.index.record(req.model, req.prompt, endpoint.id);
  }

  /** The fair-share guard: the best match, taking this request, would be over `balance_fair_factor` × fair share and 2 over the least loaded. */
  private hot(load: number, min: number, loads: readonly number[]): boolean {
    const f = this.params.balance_fair_factor;
    if (f <= 0 || load - min < 2) return false;
    let total = 0;
    for (const l of loads) total += l;
    return load + 1 > (f * (total + 1)) / loads.length;
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

  private result(scores: Map<string, number>, decision: PrefixDecision, matchRatio: number, target?: string): ScoreDetail {
    return { scores, cacheDecision: decision, target, prefix: { decision, matchRatio } };
  }
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

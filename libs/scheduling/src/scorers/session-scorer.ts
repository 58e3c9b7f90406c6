import { z } from 'zod';
import { RingSet } from '@llmgw/prefix';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, SchedRequest, ScoreDetail, Scorer } from '../types';

const schema = z
  .object({
    /** A replica takes a session only while its load stays within load_factor × average (docs/scheduling.md#session-affinity-tier-0-in-detail). */
    load_factor: z.number().min(1).default(1.25),
    /**
     * The bound is never below this many requests (this one counted): a replica holding fewer is
     * not overloaded, whatever the average (0: the ring's bound alone; the built-in `chat` sets 4).
     */
    min_bound: z.number().int().min(0).max(1_000_000).default(0),
    /** What "load" means for the bound: the router's inflight, or inflight plus scraped running. */
    load: z.enum(['inflight', 'inflight+running']).default('inflight'),
    /** Virtual nodes per replica on the ring. */
    virtual_nodes: z.number().int().min(1).max(4096).default(160),
    /** Score for everyone when the request has no session key. */
    neutral_score: z.number().min(0).max(1).default(0.5),
  })
  .strict();
export type SessionScorerParams = z.output<typeof schema>;

/**
 * Tier-0 session affinity (docs/prefix.md): the request's session key is placed
 * on a bounded-load consistent hash ring over the candidates; that replica
 * scores 1, every other 0. No session key: everyone gets `neutral_score`.
 */
export class SessionScorer implements Scorer {
  readonly type = 'session-scorer';
  private readonly rings: RingSet;

  constructor(
    readonly name: string,
    readonly params: SessionScorerParams,
  ) {
    this.rings = new RingSet({ virtualNodes: params.virtual_nodes });
  }

  score(req: SchedRequest, eps: readonly EndpointView[]): Map<string, number> {
    return this.scoreDetailed(req, eps).scores;
  }

  scoreDetailed(req: SchedRequest, eps: readonly EndpointView[]): ScoreDetail {
    const scores = new Map<string, number>();
    if (req.sessionKey === undefined || req.sessionKey === '' || eps.length === 0) {
      for (const ep of eps) scores.set(ep.id, this.params.neutral_score);
      return { scores, cacheDecision: 'no_session' };
    }
    const ids = eps.map((e) => e.id);
    const loads = new Map<string, number>();
    const withRunning = this.params.load === 'inflight+running';
    for (const ep of eps) loads.set(ep.id, ep.inflight + (withRunning ? (ep.stats?.running ?? 0) : 0));
    // One ring per model, over every replica seen for it; non-candidates are skipped (undefined load).
    const ring = this.rings.get(req.model, ids);
    const pick = ring.pick(req.sessionKey, (id) => loads.get(id), this.params.load_factor, this.params.min_bound);
    for (const ep of eps) scores.set(ep.id, ep.id === pick?.id ? 1 : 0);
    return { scores, cacheDecision: pick?.overflow ? 'session_overflow' : 'session_hit', target: pick?.id };
  }
}

export const sessionScorerFactory: PluginFactory<'scorer'> = {
  kind: 'scorer',
  description: 'tier-0 session affinity: bounded-load consistent hashing of the session key',
  create: (name, params) => new SessionScorer(name, parsePluginParams('session-scorer', name, schema, params)),
};

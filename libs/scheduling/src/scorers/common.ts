import { z } from 'zod';
import type { EndpointView, SchedRequest, ScoreInfo, Scorer } from '../types';

/** Params shared by the scorers that read scraped engine stats. */
export const scrapedParams = {
  /** Multiplier applied to a stale endpoint's score: it loses score but is not removed. */
  stale_factor: z.number().min(0).max(1).default(0.5),
  /** Score when the needed metric is absent (never scraped, or the engine does not publish it). */
  unknown_score: z.number().min(0).max(1).default(0.5),
};

export interface ScrapedParams {
  stale_factor: number;
  unknown_score: number;
}

/**
 * The stale rule on a scraped-stats score: `undefined` (the metric is absent)
 * scores `unknown_score`, and a stale endpoint's score is multiplied by
 * `stale_factor`; it loses score but is not removed.
 */
export function scrapedScore(ep: EndpointView, score: number | undefined, p: ScrapedParams): number {
  const s = score ?? p.unknown_score;
  return ep.stale ? s * p.stale_factor : s;
}

/** One score per endpoint, keyed by endpoint id (the shape `Scorer.score` returns): `out[i]` is `eps[i]`'s. */
export function scoreMap(eps: readonly EndpointView[], out: ArrayLike<number>): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < eps.length; i++) m.set(eps[i].id, out[i]);
  return m;
}

/**
 * A scorer that computes into an array (`scoreInto`, what `schedule()` calls:
 * no Map per decision); `score` is the same values keyed by id.
 */
export abstract class ArrayScorer implements Scorer {
  abstract readonly type: string;
  abstract readonly name: string;
  abstract scoreInto(req: SchedRequest, eps: readonly EndpointView[], out: Float64Array): ScoreInfo | undefined;
  score(req: SchedRequest, eps: readonly EndpointView[]): Map<string, number> {
    const out = new Float64Array(eps.length);
    this.scoreInto(req, eps, out);
    return scoreMap(eps, out);
  }
}

import { z } from 'zod';
import type { EndpointView } from '../types';

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

/** Applies the stale rule to a scraped-stats score. */
export function staleAdjusted(ep: EndpointView, score: number, p: ScrapedParams): number {
  return ep.stale ? score * p.stale_factor : score;
}

/** One score per endpoint, keyed by endpoint id: the shape every scorer returns. */
export function scoreEach(eps: readonly EndpointView[], score: (ep: EndpointView) => number): Map<string, number> {
  const out = new Map<string, number>();
  for (const ep of eps) out.set(ep.id, score(ep));
  return out;
}

/**
 * A score from scraped engine stats per endpoint: `score` answers undefined
 * when the metric it needs is absent (then `unknown_score`), and the stale
 * rule applies to every endpoint.
 */
export function scoreScraped(eps: readonly EndpointView[], p: ScrapedParams, score: (ep: EndpointView) => number | undefined): Map<string, number> {
  return scoreEach(eps, (ep) => staleAdjusted(ep, score(ep) ?? p.unknown_score, p));
}

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

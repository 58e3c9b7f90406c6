import { mulberry32 } from '@llmgw/prefix';
import type { EndpointView, SchedRequest, ScoredEndpoint } from './types';

/** An endpoint view with healthy defaults; for tests of this lib and its callers. */
export function testEndpoint(id: string, overrides: Partial<EndpointView> = {}): EndpointView {
  return {
    id,
    url: `http://${id}.test`,
    model: 'm',
    pool: 'default',
    poolPriority: 0,
    engine: 'vllm',
    weight: 100,
    draining: false,
    stale: false,
    available: true,
    inflight: 0,
    stats: { waiting: 0, running: 0, kvUsage: 0 },
    ...overrides,
  };
}

export function testRequest(overrides: Partial<SchedRequest> = {}): SchedRequest {
  return { requestId: 'req-1', model: 'm', profile: 'chat', estimatedPromptTokens: 100, ...overrides };
}

/** A `random` that returns the given values in turn, cycling. */
export function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length];
}

/** A seeded PRNG (mulberry32) for reproducible sampling tests. */
export const seeded = mulberry32;

export function scoredOf(totals: number[]): ScoredEndpoint[] {
  return totals.map((total, i) => ({ endpoint: testEndpoint(`e${i}`), total, perScorer: {} }));
}

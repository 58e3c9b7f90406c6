export type { EndpointAuth, EndpointInfo, KvEventsAddress, SchedulingPolicy } from '@llmgw/contracts';
import type { EndpointInfo } from '@llmgw/contracts';

/**
 * Where the router (and admission) learn which endpoints exist (docs/architecture.md#the-control-loop).
 * Implementations always serve from a cached list: when their backing store
 * goes away they keep the last one they saw.
 */
export interface EndpointSource {
  /** Ready endpoints serving `model` (draining ones included, flagged). */
  endpoints(model: string): readonly EndpointInfo[];
  /** Every endpoint, across models. */
  all(): readonly EndpointInfo[];
  /** Model names that have at least one endpoint. */
  models(): string[];
  /** Called after the list changes; returns an unsubscribe function. */
  subscribe(cb: () => void): () => void;
  /** Unix ms of the last successful refresh from the backing store. */
  lastRefreshMs(): number;
  close(): Promise<void>;
}

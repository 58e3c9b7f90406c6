import type { EndpointInfo, EndpointSource } from '@llmgw/endpoints';

/**
 * Engine-side priority (vLLM `--scheduling-policy priority`): for endpoints
 * configured with `scheduling_policy: priority`, the request body carries the
 * band's rank as vLLM's `priority` — the top band 0, the next 1, … (vLLM
 * serves lower values first, ties by arrival, and preempts the highest value
 * when KV blocks run short). An unknown band gets the lowest rank.
 *
 * For every other endpoint a client's own `priority` field is removed: a
 * client does not choose its engine priority, and an `fcfs` vLLM answers 400
 * to a non-zero one.
 */
export class EnginePriority {
  private readonly rank = new Map<string, number>();
  private readonly lowest: number;
  private readonly policy = new Map<string, EndpointInfo['schedulingPolicy']>();
  private readonly unsubscribe: () => void;

  /** `bands`: the configured bands (any order); higher `priority` = higher band. */
  constructor(
    bands: ReadonlyArray<{ name: string; priority: number }>,
    private readonly source: EndpointSource,
  ) {
    [...bands].sort((a, b) => b.priority - a.priority).forEach((b, i) => this.rank.set(b.name, i));
    this.lowest = Math.max(0, bands.length - 1);
    this.refresh();
    this.unsubscribe = source.subscribe(() => this.refresh());
  }

  /** vLLM `priority` for a band: its rank from the top (0 = top band). */
  forBand(band: string): number {
    return this.rank.get(band) ?? this.lowest;
  }

  /** The `priority` to send to an endpoint, or undefined when it does not schedule by priority. */
  forEndpoint(endpointId: string, band: string): number | undefined {
    return this.policy.get(endpointId) === 'priority' ? this.forBand(band) : undefined;
  }

  /**
   * Sets or removes `body.priority` for the endpoint; returns whether the body
   * changed (the caller then re-serialises it instead of forwarding the
   * client's bytes).
   */
  apply(body: Record<string, unknown>, endpointId: string, band: string): boolean {
    const p = this.forEndpoint(endpointId, band);
    if (p === undefined) {
      if (!('priority' in body)) return false;
      delete body.priority;
      return true;
    }
    if (body.priority === p) return false;
    body.priority = p;
    return true;
  }

  close(): void {
    this.unsubscribe();
  }

  private refresh(): void {
    this.policy.clear();
    for (const e of this.source.all()) if (e.schedulingPolicy === 'priority') this.policy.set(e.id, 'priority');
  }
}

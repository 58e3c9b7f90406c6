import type { EndpointInfo, EndpointSource } from './types';

/**
 * The part every endpoint source shares: the cached list (served even when
 * the source behind it is unreachable), its per-model index, subscribers and
 * the time of the last refresh. Sources call `replace()` with a new list.
 */
export abstract class CachedEndpointList implements EndpointSource {
  private list: readonly EndpointInfo[] = [];
  private byModel = new Map<string, EndpointInfo[]>();
  private readonly subs = new Set<() => void>();
  private refreshedAt = 0;

  /** Installs `list` and records a refresh; subscribers hear of it when `notify` is set. */
  protected replace(list: EndpointInfo[], notify: boolean): void {
    this.list = Object.freeze(list);
    this.byModel = groupByModel(list);
    this.touch();
    if (notify) for (const cb of this.subs) cb();
  }

  /** Records a refresh that found nothing new. */
  protected touch(): void {
    this.refreshedAt = Date.now();
  }

  endpoints(model: string): readonly EndpointInfo[] {
    return this.byModel.get(model) ?? [];
  }

  all(): readonly EndpointInfo[] {
    return this.list;
  }

  models(): string[] {
    return [...this.byModel.keys()];
  }

  subscribe(cb: () => void): () => void {
    this.subs.add(cb);
    return () => this.subs.delete(cb);
  }

  lastRefreshMs(): number {
    return this.refreshedAt;
  }

  async close(): Promise<void> {
    this.subs.clear();
  }
}

export function groupByModel(list: readonly EndpointInfo[]): Map<string, EndpointInfo[]> {
  const m = new Map<string, EndpointInfo[]>();
  for (const e of list) {
    const arr = m.get(e.model);
    if (arr) arr.push(e);
    else m.set(e.model, [e]);
  }
  return m;
}

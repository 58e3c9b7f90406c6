import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, Filter, SchedRequest } from '../types';

const noParams = z.object({}).strict();

/** Usable = not draining and not cooling down / breaker-open. */
export function isUsable(ep: EndpointView): boolean {
  return !ep.draining && ep.available;
}

/** Drops draining endpoints: they get no new requests. */
export class DrainingFilter implements Filter {
  readonly type = 'draining-filter';
  constructor(readonly name: string) {}
  filter(_req: SchedRequest, eps: readonly EndpointView[]): EndpointView[] {
    return eps.filter((e) => !e.draining);
  }
}

/** Drops endpoints in cooldown or with an open breaker (`available === false`). Stale ones stay. */
export class AvailableFilter implements Filter {
  readonly type = 'available-filter';
  constructor(readonly name: string) {}
  filter(_req: SchedRequest, eps: readonly EndpointView[]): EndpointView[] {
    return eps.filter((e) => e.available);
  }
}

/**
 * `x-llmgw-replica`: when the pinned replica is among the candidates and
 * usable, keep only it; otherwise keep everyone (the pin falls through).
 */
export class PinnedFilter implements Filter {
  readonly type = 'pinned-filter';
  constructor(readonly name: string) {}
  filter(req: SchedRequest, eps: readonly EndpointView[]): EndpointView[] {
    if (req.pinnedReplica === undefined) return eps as EndpointView[];
    const pinned = eps.find((e) => e.id === req.pinnedReplica);
    return pinned && isUsable(pinned) ? [pinned] : (eps as EndpointView[]);
  }
}

function factory(type: string, description: string, make: (name: string) => Filter): PluginFactory<'filter'> {
  return {
    kind: 'filter',
    description,
    create(name, params) {
      parsePluginParams(type, name, noParams, params);
      return make(name);
    },
  };
}

export const drainingFilterFactory = factory('draining-filter', 'drops draining endpoints', (n) => new DrainingFilter(n));
export const availableFilterFactory = factory('available-filter', 'drops endpoints in cooldown or with an open breaker', (n) => new AvailableFilter(n));
export const pinnedFilterFactory = factory('pinned-filter', 'keeps only the x-llmgw-replica endpoint when it is usable', (n) => new PinnedFilter(n));

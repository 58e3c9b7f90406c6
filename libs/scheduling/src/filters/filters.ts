import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, Filter, SchedRequest } from '../types';

const noParams = z.object({}).strict();

/** Usable = not draining and not cooling down / breaker-open. */
export function isUsable(ep: EndpointView): boolean {
  return !ep.draining && ep.available;
}

const isNotDraining = (e: EndpointView): boolean => !e.draining;
const isAvailable = (e: EndpointView): boolean => e.available;

/** The endpoints `keep` accepts; `eps` itself when it accepts all (the usual case: no copy per decision). */
function keepWhere(eps: readonly EndpointView[], keep: (e: EndpointView) => boolean): EndpointView[] {
  let i = 0;
  while (i < eps.length && keep(eps[i])) i++;
  if (i === eps.length) return eps as EndpointView[];
  const out = eps.slice(0, i);
  for (i++; i < eps.length; i++) if (keep(eps[i])) out.push(eps[i]);
  return out;
}

/** Drops draining endpoints: they get no new requests. */
export class DrainingFilter implements Filter {
  readonly type = 'draining-filter';
  constructor(readonly name: string) {}
  filter(_req: SchedRequest, eps: readonly EndpointView[]): EndpointView[] {
    return keepWhere(eps, isNotDraining);
  }
}

/** Drops endpoints in cooldown or with an open breaker (`available === false`). Stale ones stay. */
export class AvailableFilter implements Filter {
  readonly type = 'available-filter';
  constructor(readonly name: string) {}
  filter(_req: SchedRequest, eps: readonly EndpointView[]): EndpointView[] {
    return keepWhere(eps, isAvailable);
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

import type { PinAwareTenancy, RequestContext } from './context';

/**
 * The replica `x-llmgw-replica` pins (docs/router.md), when the caller may
 * pin: always without auth, else keys allowed by `tenancy.allow_replica_pin`.
 * `ctl bench` relies on it to measure one replica through the whole path.
 */
export function pinnedReplica(s: { tenancy: PinAwareTenancy }, c: Pick<RequestContext, 'principal' | 'header'>): string | undefined {
  const allowed = !s.tenancy.enabled || (c.principal !== undefined && s.tenancy.allowReplicaPin?.(c.principal) === true);
  return allowed ? c.header('x-llmgw-replica') : undefined;
}

import type { accountingV1 } from '@llmgw/contracts';
import { unary } from '@llmgw/grpc';
import type { CapacityStore } from './capacity-store';
import { toWire } from './capacity-store';
import { actorOf, withinDeadline, type ServiceDeps } from './service';

/** CapacityAdmin (docs/capacity.md): the capacity profiles `ctl bench --save` stores. */
export function capacityAdminHandlers(d: Pick<ServiceDeps, 'log' | 'dbCallTimeoutMs'> & { capacity: CapacityStore }): accountingV1.CapacityAdminHandlers {
  const h = <Req, Res>(fn: (req: Req, actor: string) => Promise<Res>) =>
    unary<Req, Res>({ log: d.log, handler: (req, ctx) => withinDeadline(ctx, d.dbCallTimeoutMs ?? 16_000, () => fn(req, actorOf(ctx.call))) });
  return {
    SaveCapacityProfile: h(async (r: accountingV1.CapacityProfile__Output, actor) => toWire(await d.capacity.save(actor, r))),
    ListCapacityProfiles: h(async (r: accountingV1.ListCapacityProfilesRequest__Output) => ({ profiles: (await d.capacity.list(r.model || undefined)).map(toWire) })),
    GetCapacityProfile: h(async (r: accountingV1.CapacityProfileRef__Output) => toWire(await d.capacity.get(r.model, r.profile))),
    DeleteCapacityProfile: h(async (r: accountingV1.CapacityProfileRef__Output, actor) => toWire(await d.capacity.delete(actor, r.model, r.profile))),
  };
}

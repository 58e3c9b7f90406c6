import type { accountingV1 } from '@llmgw/contracts';
import type * as grpc from '@grpc/grpc-js';
import { peerCommonName, unary } from '@llmgw/grpc';
import type { CapacityStore } from './capacity-store';
import { toWire } from './capacity-store';
import { withinDeadline, type ServiceDeps } from './service';

/** Who the audit log names: `x-llmgw-actor`, with the certificate's CN when there is one. */
function actorOf(call: grpc.ServerUnaryCall<unknown, unknown>): string {
  const cn = peerCommonName(call as never);
  const claimed = call.metadata.get('x-llmgw-actor')[0];
  const who = typeof claimed === 'string' && claimed ? claimed.slice(0, 200) : undefined;
  if (cn) return who ? `${who} (cn=${cn})` : `cn=${cn}`;
  return who ?? 'anonymous';
}

/** CapacityAdmin (docs/capacity.md): the capacity profiles `ctl bench --save` stores. */
export function capacityAdminHandlers(d: Pick<ServiceDeps, 'log' | 'dbCallTimeoutMs'> & { capacity: CapacityStore }): accountingV1.CapacityAdminHandlers {
  const h = <Req, Res>(fn: (req: Req, actor: string) => Promise<Res>) =>
    unary<Req, Res>({ log: d.log, handler: (req, ctx) => withinDeadline(ctx, d.dbCallTimeoutMs ?? 16_000, () => fn(req, actorOf(ctx.call))) });
  return {
    SaveCapacityProfile: h(async (r: accountingV1.CapacityProfile__Output, actor) => toWire(await d.capacity.save(actor, r))),
    ListCapacityProfiles: h(async (r: accountingV1.ListCapacityProfilesRequest__Output) => ({
      profiles: (await d.capacity.list(r.model || undefined)).map(toWire),
    })),
    GetCapacityProfile: h(async (r: accountingV1.CapacityProfileRef__Output) => toWire(await d.capacity.get(r.model, r.profile))),
    DeleteCapacityProfile: h(async (r: accountingV1.CapacityProfileRef__Output, actor) => toWire(await d.capacity.delete(actor, r.model, r.profile))),
  };
}

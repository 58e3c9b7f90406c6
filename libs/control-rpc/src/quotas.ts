import type { controlV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { boundedSchema, callerActor, unary, type UnaryLogger } from '@llmgw/grpc';
import { CAPACITY_CLASSES, type CapacityClass, type QuotaRule, type QuotaScope } from '@llmgw/placement';
import { z } from 'zod';
import type { AuditSink } from './audit';

/** A quota in force with its usage. */
export type QuotaUsage = QuotaRule & { readonly usedGpus: number; readonly overridden: boolean };

/** What the quota half needs of the placement-scheduler. */
export interface QuotaAdminScheduler {
  quotas(): QuotaUsage[];
  /** `ctl quota set`: undefined clears the override; resolves false when nothing changed. */
  setQuota(id: Pick<QuotaRule, 'scope' | 'name' | 'capacityClass'>, rule: QuotaRule | undefined): Promise<boolean>;
}

function quotaToWire(q: QuotaUsage): controlV1.Quota {
  return {
    scope: q.scope,
    name: q.name,
    capacityClass: q.capacityClass ?? '',
    guaranteeGpus: q.guaranteeGpus,
    limitGpus: q.limitGpus ?? 0,
    hasLimit: q.limitGpus !== undefined,
    usedGpus: Math.max(0, q.usedGpus),
    overridden: q.overridden,
  };
}

const scopeName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1–64 characters of letters, digits and . _ -');
const setSchema = z
  .object({
    scope: z.enum(['org', 'team', 'project'], { message: 'scope must be org, team or project' }),
    name: scopeName,
    capacityClass: z.union([z.literal(''), z.enum(CAPACITY_CLASSES as [CapacityClass, ...CapacityClass[]])]),
    guaranteeGpus: z.number().int().min(0).max(1_000_000),
    limitGpus: z.number().int().min(0).max(1_000_000),
    hasLimit: z.boolean(),
    clear: z.boolean(),
  })
  .passthrough();

type SetQuotaInput = z.infer<typeof setSchema>;

/** The quota half of the ControlService (`ctl quota show|set`). */
export class QuotaAdmin {
  constructor(private readonly scheduler: QuotaAdminScheduler) {}

  list(): controlV1.ListQuotasResponse {
    return { quotas: this.scheduler.quotas().map(quotaToWire) };
  }

  async set(r: SetQuotaInput): Promise<controlV1.SetQuotaResponse> {
    if (!r.clear && r.hasLimit && r.limitGpus < r.guaranteeGpus) {
      throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `limit_gpus (${r.limitGpus}) must be ≥ guarantee_gpus (${r.guaranteeGpus})`);
    }
    const id = { scope: r.scope as QuotaScope, name: r.name, ...(r.capacityClass ? { capacityClass: r.capacityClass } : {}) };
    const rule: QuotaRule | undefined = r.clear ? undefined : { ...id, guaranteeGpus: r.guaranteeGpus, ...(r.hasLimit ? { limitGpus: r.limitGpus } : {}) };
    const changed = await this.scheduler.setQuota(id, rule);
    const now = this.scheduler.quotas().find((q) => q.scope === id.scope && q.name === id.name && (q.capacityClass ?? '') === r.capacityClass);
    return { quota: quotaToWire(now ?? { ...id, guaranteeGpus: 0, usedGpus: 0, overridden: false }), changed };
  }
}

export type ControlQuotaHandlers = Pick<controlV1.ControlServiceHandlers, 'ListQuotas' | 'SetQuota'>;

/** grpc-js handlers of the quota half; every set or clear goes to the audit log with the caller. */
export function controlQuotaHandlers(admin: QuotaAdmin, opts: { log?: UnaryLogger; audit?: AuditSink } = {}): ControlQuotaHandlers {
  return {
    ListQuotas: unary({ log: opts.log, handler: () => admin.list() }),
    SetQuota: unary({
      log: opts.log,
      schema: boundedSchema(setSchema),
      handler: async (r, ctx) => {
        const res = await admin.set(r);
        const q = res.quota;
        opts.audit?.record({
          actor: callerActor(ctx.call),
          action: r.clear ? 'quota.clear' : 'quota.set',
          targetType: 'quota',
          targetId: `${r.scope}/${r.name}${r.capacityClass ? `/${r.capacityClass}` : ''}`,
          details: { ...(r.clear ? {} : { guaranteeGpus: q?.guaranteeGpus, limitGpus: q?.hasLimit ? q.limitGpus : null }), changed: res.changed },
        });
        return res;
      },
    }),
  };
}

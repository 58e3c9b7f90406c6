import type { FastifyInstance } from 'fastify';
import type { Principal } from '@llmgw/contracts';
import { toHttpError } from '@llmgw/errors';
import type { LimitCounters } from '@llmgw/stores';
import { effectiveLimits } from '@llmgw/tenancy';
import { periodStartEnd } from './quota';

/** `GET /me`: the calling key, its limits and what it has used of them (docs/accounting.md). */
export function registerMeRoute(
  app: FastifyInstance,
  authenticate: (authorization: string | undefined) => Promise<Principal>,
  counters: LimitCounters,
  now: () => number,
): void {
  app.get('/me', async (req, reply) => {
    try {
      const p = await authenticate(req.headers.authorization);
      return reply.send(await describeKey(p, counters, now()));
    } catch (e) {
      const h = toHttpError(e);
      return reply.code(h.status).headers(h.headers).send(h.body);
    }
  });
}

async function describeKey(p: Principal, counters: LimitCounters, at: number) {
  const scopes = [...new Set([...p.limits.rpm, ...p.limits.tpm].map((x) => x.scope))];
  const windows = Object.fromEntries(await Promise.all(scopes.map(async (sc) => [sc, await counters.windowUsage(sc, at).catch(() => undefined)] as const)));
  const budgets = await Promise.all(
    p.limits.budgets.map(async (b) => {
      const pe = periodStartEnd(b.period, at);
      return {
        scope: b.scope,
        period: b.period,
        limit_micros: b.limitMicros,
        spent_micros: await counters.budgetSpent(b.scope, pe.periodStart).catch(() => null),
        resets_at: new Date(pe.periodEnd).toISOString(),
      };
    }),
  );
  const eff = effectiveLimits(p.limits);
  return {
    object: 'llmgw.key',
    key_id: p.keyId,
    key_prefix: p.keyPrefix,
    project_id: p.projectId,
    team_id: p.teamId,
    org_id: p.orgId,
    band: p.band,
    routing_profile: p.routingProfile ?? null,
    expires_at: p.expiresAt ? new Date(p.expiresAt).toISOString() : null,
    allowed_models: p.limits.allowedModels ?? null,
    effective: {
      rpm: eff.rpm ?? null,
      tpm: eff.tpm ?? null,
      budget_micros_per_day: eff.budgetMicrosPerDay ?? null,
      budget_micros_per_month: eff.budgetMicrosPerMonth ?? null,
    },
    limits: {
      rpm: p.limits.rpm.map((x) => ({ scope: x.scope, limit: x.limit, used: windows[x.scope]?.requests ?? null })),
      tpm: p.limits.tpm.map((x) => ({ scope: x.scope, limit: x.limit, used: windows[x.scope]?.tokens ?? null })),
    },
    budgets,
  };
}

import type * as grpc from '@grpc/grpc-js';
import { principalToWire } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import type { ApiKeyRow, AuditRow, LimitRow, Organization, Project, Team } from '@llmgw/db';
import { LlmgwError } from '@llmgw/errors';
import { ACTOR_METADATA_KEY, peerCommonName, unary, type UnaryLogger } from '@llmgw/grpc';
import type { LimitCounters } from '@llmgw/stores';
import { type BudgetPeriod, type ScopeType, periodBounds } from '@llmgw/tenancy';
import type { TenancyStore } from './tenancy-store';
import type { UsageGroupBy, UsageStore } from './usage-store';


const SCOPE_TYPES: ScopeType[] = ['org', 'team', 'project', 'key'];

export function scopeTypeOf(s: string): ScopeType {
  if ((SCOPE_TYPES as string[]).includes(s)) return s as ScopeType;
  throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `scope type must be one of ${SCOPE_TYPES.join(', ')}`);
}

const n0 = (v: number | null | undefined) => v ?? 0;

export const toOrg = (o: Organization): accountingV1.Org => ({ id: o.id, name: o.name, createdAtMs: o.created_at });
export const toTeam = (t: Team): accountingV1.Team => ({ id: t.id, orgId: t.org_id, name: t.name, createdAtMs: t.created_at });
export const toProject = (p: Project): accountingV1.Project => ({ id: p.id, teamId: p.team_id, name: p.name, band: p.band ?? '', createdAtMs: p.created_at });
export const toKey = (k: ApiKeyRow): accountingV1.ApiKey => ({
  id: k.id, keyPrefix: k.key_prefix, name: k.name, projectId: k.project_id, band: k.band ?? '', routingProfile: k.routing_profile ?? '',
  createdAtMs: k.created_at, expiresAtMs: n0(k.expires_at), revokedAtMs: n0(k.revoked_at), lastUsedAtMs: n0(k.last_used_at),
});
export const toLimit = (l: LimitRow): accountingV1.Limit => {
  const models = l.allowed_models === null ? undefined : (JSON.parse(l.allowed_models) as string[]);
  return {
    scopeType: l.scope_type, scopeId: l.scope_id,
    hasRpm: l.rpm !== null, rpm: n0(l.rpm), hasTpm: l.tpm !== null, tpm: n0(l.tpm),
    hasBudget: l.budget_micros !== null, budgetMicros: n0(l.budget_micros), budgetPeriod: l.budget_period ?? '',
    modelsRestricted: models !== undefined, allowedModels: models ?? [], updatedAtMs: l.updated_at,
  };
};
export const toAudit = (a: AuditRow): accountingV1.AuditEvent => ({ id: a.id, atMs: a.ts, actor: a.actor, action: a.action, targetType: a.target_type, targetId: a.target_id, details: a.details });

/** Who made an admin call: `x-llmgw-actor` metadata, else the mTLS peer CN, else "anonymous". */
export function actorOf(call: grpc.ServerUnaryCall<unknown, unknown>): string {
  const cn = peerCommonName(call as any);
  const claimed = call.metadata.get('x-llmgw-actor')[0];
  const who = typeof claimed === 'string' && claimed ? claimed.slice(0, 200) : undefined;
  if (cn) return who ? `${who} (cn=${cn})` : `cn=${cn}`;
  return who ?? 'anonymous';
}

const clear = (v: string) => (v === '' ? undefined : v === '-' ? null : v);

export interface ServiceDeps {
  tenancy: TenancyStore;
  usage: UsageStore;
  counters: LimitCounters;
  log: UnaryLogger;
  now?: () => number;
}

export function keyResolverHandlers(d: ServiceDeps): accountingV1.KeyResolverHandlers {
  return {
    ResolveKey: unary({
      log: d.log,
      handler: async (req: accountingV1.ResolveKeyRequest__Output) => {
        if (!/^[0-9a-f]{64}$/.test(req.keyHash)) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'key_hash must be 64 lowercase hex characters');
        return principalToWire(await d.tenancy.resolve(req.keyHash));
      },
    }),
  };
}

export function tenancyAdminHandlers(d: ServiceDeps): accountingV1.TenancyAdminHandlers {
  const t = d.tenancy;
  const now = d.now ?? Date.now;
  const h = <Req, Res>(fn: (req: Req, actor: string) => Promise<Res>) =>
    unary<Req, Res>({ log: d.log, handler: (req, ctx) => fn(req, actorOf(ctx.call)) });
  const limitInput = (l: accountingV1.Limit__Output | null) => ({
    ...(l?.hasRpm ? { rpm: l.rpm } : {}),
    ...(l?.hasTpm ? { tpm: l.tpm } : {}),
    ...(l?.hasBudget ? { budgetMicros: l.budgetMicros, budgetPeriod: (l.budgetPeriod || 'month') as BudgetPeriod } : {}),
    ...(l?.modelsRestricted ? { allowedModels: [...l.allowedModels] } : {}),
  });
  return {
    CreateOrg: h(async (r: accountingV1.CreateOrgRequest__Output, actor) => toOrg(await t.createOrg(actor, r.name))),
    ListOrgs: h(async () => ({ orgs: (await t.listOrgs()).map(toOrg) })),
    GetOrg: h(async (r: accountingV1.Ref__Output) => toOrg(await t.org(r.ref))),
    RenameOrg: h(async (r: accountingV1.RenameRequest__Output, actor) => toOrg(await t.renameOrg(actor, r.ref, r.name))),

    CreateTeam: h(async (r: accountingV1.CreateTeamRequest__Output, actor) => toTeam(await t.createTeam(actor, r.org, r.name))),
    ListTeams: h(async (r: accountingV1.ListTeamsRequest__Output) => ({ teams: (await t.listTeams(r.org || undefined)).map(toTeam) })),
    GetTeam: h(async (r: accountingV1.Ref__Output) => toTeam(await t.team(r.ref))),
    RenameTeam: h(async (r: accountingV1.RenameRequest__Output, actor) => toTeam(await t.renameTeam(actor, r.ref, r.name))),

    CreateProject: h(async (r: accountingV1.CreateProjectRequest__Output, actor) => toProject(await t.createProject(actor, r.team, r.name, r.band || undefined))),
    ListProjects: h(async (r: accountingV1.ListProjectsRequest__Output) => ({ projects: (await t.listProjects(r.team || undefined)).map(toProject) })),
    GetProject: h(async (r: accountingV1.Ref__Output) => toProject(await t.project(r.ref))),
    UpdateProject: h(async (r: accountingV1.UpdateProjectRequest__Output, actor) => toProject(await t.updateProject(actor, r.ref, { name: r.name || undefined, band: clear(r.band) }))),

    CreateKey: h(async (r: accountingV1.CreateKeyRequest__Output, actor) => {
      const { row, secret } = await t.createKey(actor, r.project, { name: r.name, band: r.band || undefined, routingProfile: r.routingProfile || undefined, expiresAt: r.expiresAtMs || undefined });
      return { key: toKey(row), secret };
    }),
    ListKeys: h(async (r: accountingV1.ListKeysRequest__Output) => ({ keys: (await t.listKeys(r.project || undefined, r.includeRevoked)).map(toKey) })),
    GetKey: h(async (r: accountingV1.Ref__Output) => toKey(await t.key(r.ref))),
    RevokeKey: h(async (r: accountingV1.Ref__Output, actor) => toKey(await t.revokeKey(actor, r.ref))),
    UpdateKey: h(async (r: accountingV1.UpdateKeyRequest__Output, actor) =>
      toKey(
        await t.updateKey(actor, r.ref, {
          name: r.name || undefined, band: clear(r.band), routingProfile: clear(r.routingProfile),
          expiresAt: r.expiresAtMs === 0 ? undefined : r.expiresAtMs < 0 ? null : r.expiresAtMs,
        }),
      ),
    ),

    SetLimit: h(async (r: accountingV1.SetLimitRequest__Output, actor) => {
      if (!r.scope) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'scope is required');
      return toLimit(await t.setLimit(actor, scopeTypeOf(r.scope.scopeType), r.scope.scope, limitInput(r.limit)));
    }),
    GetLimit: h(async (r: accountingV1.ScopeRef__Output) => toLimit(await t.getLimit(scopeTypeOf(r.scopeType), r.scope))),
    ListLimits: h(async () => ({ limits: (await t.listLimits()).map(toLimit) })),
    ExplainKey: h(async (r: accountingV1.Ref__Output) => {
      const key = await t.key(r.ref);
      const principal = await t.principalOf(await t.chainOf(key));
      const at = now();
      const budgets = await Promise.all(
        principal.limits.budgets.map(async (b): Promise<accountingV1.BudgetSpend> => {
          const bounds = periodBounds(b.period, at);
          return { scope: b.scope, period: b.period, limitMicros: b.limitMicros, spentMicros: await d.counters.budgetSpent(b.scope, bounds.start), periodEndMs: bounds.end };
        }),
      );
      const report: accountingV1.KeyReport = { key: toKey(key), resolved: principalToWire(principal), budgets };
      return report;
    }),

    QueryUsage: h(async (r: accountingV1.QueryUsageRequest__Output) => {
      const groupBy = r.groupBy as UsageGroupBy;
      if (!['', 'model', 'key', 'project', 'hour', 'status'].includes(groupBy)) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'group_by must be model, key, project, hour, status or empty');
      const scope = r.scope?.scopeType ? { type: scopeTypeOf(r.scope.scopeType), id: await t.scopeId(scopeTypeOf(r.scope.scopeType), r.scope.scope) } : undefined;
      const rows = await d.usage.query({ scope, from: r.fromMs, to: r.toMs || now() + 1, groupBy });
      return {
        rows: rows.map((x) => ({ group: x.grp, requests: x.requests, refused: x.refused, failed: x.failed, promptTokens: x.prompt_tokens, completionTokens: x.completion_tokens, cachedTokens: x.cached_tokens, costMicros: x.cost_micros })),
      };
    }),
    ListAudit: h(async (r: accountingV1.ListAuditRequest__Output) => ({ events: (await t.listAudit({ sinceMs: r.sinceMs, limit: r.limit, targetId: r.targetId || undefined })).map(toAudit) })),
  };
}

const auditText = (max: number) => (v: string) => v.trim().slice(0, max);

/**
 * AuditLog: the placement-scheduler appends the fleet's operator actions
 * (cordon, drain, model targets) here, so one log answers "who did what".
 * The actor is the operator the relay resolved (`x-llmgw-actor`); the
 * relay's own certificate CN is kept as `via` in the details.
 */
export function auditLogHandlers(d: Pick<ServiceDeps, 'tenancy' | 'log'>): accountingV1.AuditLogHandlers {
  return {
    AppendAudit: unary({
      log: d.log,
      handler: async (r: accountingV1.AppendAuditRequest__Output, ctx) => {
        const action = auditText(100)(r.action);
        const targetType = auditText(50)(r.targetType);
        const targetId = auditText(300)(r.targetId);
        if (!action || !targetType || !targetId) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'action, target_type and target_id are required');
        let details: Record<string, unknown> = {};
        if (r.details) {
          try {
            const parsed = JSON.parse(r.details) as unknown;
            if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
            details = parsed as Record<string, unknown>;
          } catch {
            throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'details must be a JSON object');
          }
        }
        if (r.details.length > 16_384) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'details is at most 16 KiB');
        const claimed = ctx.call.metadata.get(ACTOR_METADATA_KEY)[0];
        const actor = typeof claimed === 'string' && claimed.trim() ? claimed.trim().slice(0, 200) : 'anonymous';
        const via = peerCommonName(ctx.call as any);
        return toAudit(await d.tenancy.appendAudit(actor, action, targetType, targetId, via ? { ...details, via: `cn=${via}` } : details));
      },
    }),
  };
}

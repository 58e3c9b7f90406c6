import type * as grpc from '@grpc/grpc-js';
import { IDEMPOTENCY_KEY, principalToWire } from '@llmgw/accounting-rpc';
import { type accountingV1, nameProblem } from '@llmgw/contracts';
import { type ApiKeyRow, type AuditRow, type LimitRow, type Organization, type Project, type Team, dbError } from '@llmgw/db';
import { LlmgwError } from '@llmgw/errors';
import { ACTOR_METADATA_KEY, callerActor, peerCommonName, unary, type UnaryContext, type UnaryLogger } from '@llmgw/grpc';
import type { LimitCounters } from '@llmgw/stores';
import { type BudgetPeriod, type ScopeType, periodBounds } from '@llmgw/tenancy';
import { checkRef, checkTime, type TenancyStore, type WriteOptions } from './tenancy-store';
import { USAGE_GROUPS, type UsageGroupBy, type UsageStore } from './usage-store';

const SCOPE_TYPES: ScopeType[] = ['org', 'team', 'project', 'key'];

export function scopeTypeOf(s: string): ScopeType {
  if ((SCOPE_TYPES as string[]).includes(s)) return s as ScopeType;
  throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `scope.scope_type must be one of ${SCOPE_TYPES.join(', ')}`, { param: 'scope.scope_type' });
}

/** The caller's idempotency key: 1–128 of A-Z a-z 0-9 . _ : - (absent = not idempotent). */
export function idempotencyKeyOf(md: grpc.Metadata): string | undefined {
  const v = md.get(IDEMPOTENCY_KEY)[0];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(v)) {
    throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${IDEMPOTENCY_KEY} must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"`, {
      param: IDEMPOTENCY_KEY,
    });
  }
  return v;
}

/**
 * Margin kept before the caller's deadline, so the answer arrives while the
 * caller still listens: a quarter of the time left, at most this (ms). A
 * fixed 300 ms was less than one stall of a loaded process (either end), and
 * the caller's own deadline then fired first and said "cannot reach".
 */
const DEADLINE_MARGIN_MS = 1000;

/**
 * Runs one database-backed handler within the caller's deadline
 * (docs/operations.md, "What happens when the database …"): when the
 * database has not answered shortly before the deadline (or within
 * `maxMs`), the call answers UNAVAILABLE "database unavailable" and its
 * write is abandoned (the signal makes the transaction roll back instead of
 * committing). Database errors become statuses that say what is wrong (dbError).
 */
export async function withinDeadline<T>(ctx: Pick<UnaryContext, 'signal' | 'call'>, maxMs: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const onCancel = () => ac.abort();
  ctx.signal.addEventListener('abort', onCancel, { once: true });
  const d = ctx.call.getDeadline();
  const at = d instanceof Date ? d.getTime() : Number(d);
  const remaining = Number.isFinite(at) ? at - Date.now() : Infinity;
  const budget = Math.max(0, Math.min(maxMs, remaining - Math.min(DEADLINE_MARGIN_MS, remaining / 4)));
  let timer: NodeJS.Timeout | undefined;
  const work = fn(ac.signal);
  work.catch(() => {});
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          ac.abort();
          reject(new LlmgwError('LLMGW_ERR_UNAVAILABLE', "database unavailable (no answer before the call's deadline)", { retryAfterSeconds: 1 }));
        }, budget);
      }),
    ]);
  } catch (e) {
    throw dbError(e);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onCancel);
  }
}

/** A wire int64 time (unix ms) checked for what bigint and a JS number hold; 0 = unset. */
const time = (v: number, field: string, signed = false) => {
  checkTime(v, field, signed);
  return v;
};

/** An optional stored label (band, routing profile): the name rule, '' = unset. */
const label = (v: string, field: string) => {
  const p = nameProblem(v, field, { optional: true });
  if (p) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', p, { param: field });
  return v;
};

const n0 = (v: number | null | undefined) => v ?? 0;

export const toOrg = (o: Organization): accountingV1.Org => ({ id: o.id, name: o.name, createdAtMs: o.created_at });
export const toTeam = (t: Team): accountingV1.Team => ({ id: t.id, orgId: t.org_id, name: t.name, createdAtMs: t.created_at });
export const toProject = (p: Project): accountingV1.Project => ({ id: p.id, teamId: p.team_id, name: p.name, band: p.band ?? '', createdAtMs: p.created_at });
export const toKey = (k: ApiKeyRow): accountingV1.ApiKey => ({
  id: k.id,
  keyPrefix: k.key_prefix,
  name: k.name,
  projectId: k.project_id,
  band: k.band ?? '',
  routingProfile: k.routing_profile ?? '',
  createdAtMs: k.created_at,
  expiresAtMs: n0(k.expires_at),
  revokedAtMs: n0(k.revoked_at),
  lastUsedAtMs: n0(k.last_used_at),
});
export const toLimit = (l: LimitRow): accountingV1.Limit => {
  const models = l.allowed_models === null ? undefined : (JSON.parse(l.allowed_models) as string[]);
  return {
    scopeType: l.scope_type,
    scopeId: l.scope_id,
    hasRpm: l.rpm !== null,
    rpm: n0(l.rpm),
    hasTpm: l.tpm !== null,
    tpm: n0(l.tpm),
    hasBudget: l.budget_micros !== null,
    budgetMicros: n0(l.budget_micros),
    budgetPeriod: l.budget_period ?? '',
    modelsRestricted: models !== undefined,
    allowedModels: models ?? [],
    updatedAtMs: l.updated_at,
  };
};
export const toAudit = (a: AuditRow): accountingV1.AuditEvent => ({
  id: a.id,
  atMs: a.ts,
  actor: a.actor,
  action: a.action,
  targetType: a.target_type,
  targetId: a.target_id,
  details: a.details,
});

const clear = (v: string) => (v === '' ? undefined : v === '-' ? null : v);

export interface ServiceDeps {
  tenancy: TenancyStore;
  usage: UsageStore;
  counters: LimitCounters;
  log: UnaryLogger;
  now?: () => number;
  /** Longest one call waits on the database, deadline aside (ms; default 16000). */
  dbCallTimeoutMs?: number;
}

export function keyResolverHandlers(d: ServiceDeps): accountingV1.KeyResolverHandlers {
  return {
    ResolveKey: unary({
      log: d.log,
      handler: async (req: accountingV1.ResolveKeyRequest__Output, ctx) => {
        if (!/^[0-9a-f]{64}$/.test(req.keyHash)) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'key_hash must be 64 lowercase hex characters');
        return withinDeadline(ctx, d.dbCallTimeoutMs ?? 16_000, async () => principalToWire(await d.tenancy.resolve(req.keyHash)));
      },
    }),
  };
}

export function tenancyAdminHandlers(d: ServiceDeps): accountingV1.TenancyAdminHandlers {
  const t = d.tenancy;
  const now = d.now ?? Date.now;
  // Every admin call: within the caller's deadline, database errors mapped;
  // writes get the caller's idempotency key and the abandon signal.
  const h = <Req, Res>(fn: (req: Req, actor: string, w: WriteOptions) => Promise<Res>) =>
    unary<Req, Res>({
      log: d.log,
      handler: (req, ctx) => {
        const requestKey = idempotencyKeyOf(ctx.metadata);
        return withinDeadline(ctx, d.dbCallTimeoutMs ?? 16_000, (signal) => fn(req, callerActor(ctx.call), { requestKey, signal }));
      },
    });
  const limitInput = (l: accountingV1.Limit__Output | null) => ({
    ...(l?.hasRpm ? { rpm: l.rpm } : {}),
    ...(l?.hasTpm ? { tpm: l.tpm } : {}),
    ...(l?.hasBudget ? { budgetMicros: l.budgetMicros, budgetPeriod: (l.budgetPeriod || 'month') as BudgetPeriod } : {}),
    ...(l?.modelsRestricted ? { allowedModels: [...l.allowedModels] } : {}),
  });
  return {
    CreateOrg: h(async (r: accountingV1.CreateOrgRequest__Output, actor, w) => toOrg(await t.createOrg(actor, r.name, w))),
    ListOrgs: h(async () => ({ orgs: (await t.listOrgs()).map(toOrg) })),
    GetOrg: h(async (r: accountingV1.Ref__Output) => toOrg(await t.org(r.ref))),
    RenameOrg: h(async (r: accountingV1.RenameRequest__Output, actor, w) => toOrg(await t.renameOrg(actor, r.ref, r.name, w))),

    CreateTeam: h(async (r: accountingV1.CreateTeamRequest__Output, actor, w) => toTeam(await t.createTeam(actor, r.org, r.name, w))),
    ListTeams: h(async (r: accountingV1.ListTeamsRequest__Output) => ({ teams: (await t.listTeams(r.org || undefined)).map(toTeam) })),
    GetTeam: h(async (r: accountingV1.Ref__Output) => toTeam(await t.team(r.ref))),
    RenameTeam: h(async (r: accountingV1.RenameRequest__Output, actor, w) => toTeam(await t.renameTeam(actor, r.ref, r.name, w))),

    CreateProject: h(async (r: accountingV1.CreateProjectRequest__Output, actor, w) =>
      toProject(await t.createProject(actor, r.team, r.name, label(r.band, 'band') || undefined, w)),
    ),
    ListProjects: h(async (r: accountingV1.ListProjectsRequest__Output) => ({ projects: (await t.listProjects(r.team || undefined)).map(toProject) })),
    GetProject: h(async (r: accountingV1.Ref__Output) => toProject(await t.project(r.ref))),
    UpdateProject: h(async (r: accountingV1.UpdateProjectRequest__Output, actor, w) =>
      toProject(await t.updateProject(actor, r.ref, { name: r.name || undefined, band: clear(label(r.band, 'band')) }, w)),
    ),

    CreateKey: h(async (r: accountingV1.CreateKeyRequest__Output, actor, w) => {
      const expiresAt = time(r.expiresAtMs, 'expires_at_ms') || undefined;
      const { row, secret } = await t.createKey(
        actor,
        r.project,
        { name: r.name, band: label(r.band, 'band') || undefined, routingProfile: label(r.routingProfile, 'routing_profile') || undefined, expiresAt },
        w,
      );
      return { key: toKey(row), secret };
    }),
    ListKeys: h(async (r: accountingV1.ListKeysRequest__Output) => ({ keys: (await t.listKeys(r.project || undefined, r.includeRevoked)).map(toKey) })),
    GetKey: h(async (r: accountingV1.Ref__Output) => toKey(await t.key(r.ref))),
    RevokeKey: h(async (r: accountingV1.Ref__Output, actor, w) => toKey(await t.revokeKey(actor, r.ref, w))),
    UpdateKey: h(async (r: accountingV1.UpdateKeyRequest__Output, actor, w) => {
      const exp = time(r.expiresAtMs, 'expires_at_ms', true);
      return toKey(
        await t.updateKey(
          actor,
          r.ref,
          {
            name: r.name || undefined,
            band: clear(label(r.band, 'band')),
            routingProfile: clear(label(r.routingProfile, 'routing_profile')),
            expiresAt: exp === 0 ? undefined : exp < 0 ? null : exp,
          },
          w,
        ),
      );
    }),

    SetLimit: h(async (r: accountingV1.SetLimitRequest__Output, actor, w) => {
      if (!r.scope) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'scope is required', { param: 'scope' });
      return toLimit(await t.setLimit(actor, scopeTypeOf(r.scope.scopeType), r.scope.scope, limitInput(r.limit), w));
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
          return {
            scope: b.scope,
            period: b.period,
            limitMicros: b.limitMicros,
            spentMicros: await d.counters.budgetSpent(b.scope, bounds.start),
            periodEndMs: bounds.end,
          };
        }),
      );
      const report: accountingV1.KeyReport = { key: toKey(key), resolved: principalToWire(principal), budgets };
      return report;
    }),

    QueryUsage: h(async (r: accountingV1.QueryUsageRequest__Output) => {
      const groupBy = r.groupBy as UsageGroupBy;
      if (!USAGE_GROUPS.includes(groupBy))
        throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'group_by must be model, adapter, key, project, team, org, hour, status or empty');
      const from = time(r.fromMs, 'from_ms', true);
      const to = time(r.toMs, 'to_ms', true) || now() + 1;
      const scope = r.scope?.scopeType
        ? { type: scopeTypeOf(r.scope.scopeType), id: await t.scopeId(scopeTypeOf(r.scope.scopeType), r.scope.scope) }
        : undefined;
      const rows = await d.usage.query({ scope, from, to, groupBy });
      return {
        rows: rows.map((x) => ({
          group: x.grp,
          requests: x.requests,
          refused: x.refused,
          failed: x.failed,
          promptTokens: x.prompt_tokens,
          completionTokens: x.completion_tokens,
          cachedTokens: x.cached_tokens,
          costMicros: x.cost_micros,
        })),
      };
    }),
    ListAudit: h(async (r: accountingV1.ListAuditRequest__Output) => ({
      events: (await t.listAudit({ sinceMs: r.sinceMs, limit: r.limit, targetId: r.targetId || undefined })).map(toAudit),
    })),
  };
}

const auditText = (max: number) => (v: string) => v.trim().slice(0, max);

/**
 * AuditLog: the placement-scheduler appends the fleet's operator actions
 * (cordon, drain, model targets) here, so one log answers "who did what".
 * The actor is the operator the relay resolved (`x-llmgw-actor`); the
 * relay's own certificate CN is kept as `via` in the details.
 */
export function auditLogHandlers(d: Pick<ServiceDeps, 'tenancy' | 'log' | 'dbCallTimeoutMs'>): accountingV1.AuditLogHandlers {
  return {
    AppendAudit: unary({
      log: d.log,
      handler: async (r: accountingV1.AppendAuditRequest__Output, ctx) => {
        const action = auditText(100)(r.action);
        const targetType = auditText(50)(r.targetType);
        const targetId = auditText(300)(r.targetId);
        if (!action || !targetType || !targetId) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'action, target_type and target_id are required');
        checkRef(action, 'action', 100);
        checkRef(targetType, 'target_type', 50);
        checkRef(targetId, 'target_id', 300);
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
        return withinDeadline(ctx, d.dbCallTimeoutMs ?? 16_000, async () =>
          toAudit(await d.tenancy.appendAudit(actor, action, targetType, targetId, via ? { ...details, via: `cn=${via}` } : details)),
        );
      },
    }),
  };
}

import type { ApiKeyRow, AuditRow, Database, LimitRow, Organization, Project, Team } from '@llmgw/db';
import { LlmgwError } from '@llmgw/errors';
import { type BudgetPeriod, type LevelLimits, type ScopeType, mintApiKey, resolveLimits } from '@llmgw/tenancy';
import type { Principal } from '@llmgw/contracts';
import type { KeyCacheBus } from '@llmgw/stores';
import { type Kysely, type Transaction } from 'kysely';
import { randomBytes } from 'node:crypto';

/** Fields of a limit row; undefined = not limited at this level. */
export interface LimitInput {
  rpm?: number;
  tpm?: number;
  budgetMicros?: number;
  budgetPeriod?: BudgetPeriod;
  /** undefined = every model; [] = none. */
  allowedModels?: string[];
}

export interface KeyChain {
  key: ApiKeyRow;
  project: Project;
  team: Team;
  org: Organization;
}

const ID_PREFIX: Record<ScopeType, string> = { org: 'org_', team: 'team_', project: 'proj_', key: 'key_' };

function newId(type: ScopeType): string {
  return ID_PREFIX[type] + randomBytes(9).toString('base64url').replace(/[-_]/g, 'x');
}

function isUniqueViolation(e: unknown): boolean {
  return (e as { code?: string })?.code === '23505' || /unique|duplicate key/i.test(String((e as Error)?.message));
}

const notFound = (what: string, ref: string) => new LlmgwError('LLMGW_ERR_NOT_FOUND', `${what} "${ref}" not found`);

/**
 * The tenancy tree in the database: create/list/show/update, key minting and
 * revocation, limits, key resolution and the audit log. Every change is one
 * transaction that also writes its audit event, then publishes a key-cache
 * invalidation for the changed scope.
 */
export class TenancyStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly bus: KeyCacheBus,
    private readonly now: () => number = Date.now,
  ) {}

  private async audit(tx: Transaction<Database> | Kysely<Database>, actor: string, action: string, targetType: string, targetId: string, details: object): Promise<void> {
    await tx.insertInto('audit_log').values({ ts: this.now(), actor, action, target_type: targetType, target_id: targetId, details: JSON.stringify(details) }).execute();
  }

  /**
   * An operator action done in another service (cordon, drain, model target
   * through the placement-scheduler), in the same log as tenancy's changes.
   */
  async appendAudit(actor: string, action: string, targetType: string, targetId: string, details: object): Promise<AuditRow> {
    return this.db
      .insertInto('audit_log')
      .values({ ts: this.now(), actor, action, target_type: targetType, target_id: targetId, details: JSON.stringify(details) })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  private async invalidate(scopeType: ScopeType, scopeId: string): Promise<void> {
    await this.bus.publish({ scopeType, scopeId });
  }

  // --- lookups by id or name ---------------------------------------------

  async org(ref: string): Promise<Organization> {
    const r = await this.db.selectFrom('organizations').selectAll().where((eb) => eb.or([eb('id', '=', ref), eb('name', '=', ref)])).executeTakeFirst();
    if (!r) throw notFound('organization', ref);
    return r;
  }

  private async unique<T>(rows: T[], what: string, ref: string): Promise<T> {
    if (rows.length === 0) throw notFound(what, ref);
    if (rows.length > 1) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${what} name "${ref}" is ambiguous; use its id`);
    return rows[0];
  }

  async team(ref: string): Promise<Team> {
    return this.unique(await this.db.selectFrom('teams').selectAll().where((eb) => eb.or([eb('id', '=', ref), eb('name', '=', ref)])).execute(), 'team', ref);
  }

  async project(ref: string): Promise<Project> {
    return this.unique(await this.db.selectFrom('projects').selectAll().where((eb) => eb.or([eb('id', '=', ref), eb('name', '=', ref)])).execute(), 'project', ref);
  }

  async key(ref: string): Promise<ApiKeyRow> {
    return this.unique(
      await this.db.selectFrom('api_keys').selectAll().where((eb) => eb.or([eb('id', '=', ref), eb('name', '=', ref), eb('key_prefix', '=', ref)])).execute(),
      'key',
      ref,
    );
  }

  async scopeId(type: ScopeType, ref: string): Promise<string> {
    if (type === 'org') return (await this.org(ref)).id;
    if (type === 'team') return (await this.team(ref)).id;
    if (type === 'project') return (await this.project(ref)).id;
    return (await this.key(ref)).id;
  }

  // --- organizations, teams, projects --------------------------------------

  async createOrg(actor: string, name: string): Promise<Organization> {
    checkName(name);
    const row = { id: newId('org'), name, created_at: this.now() };
    await this.write('organization', name, async (tx) => {
      await tx.insertInto('organizations').values(row).execute();
      await this.audit(tx, actor, 'org.create', 'org', row.id, { name });
    });
    return row;
  }

  listOrgs(): Promise<Organization[]> {
    return this.db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  async renameOrg(actor: string, ref: string, name: string): Promise<Organization> {
    checkName(name);
    const o = await this.org(ref);
    await this.write('organization', name, async (tx) => {
      await tx.updateTable('organizations').set({ name }).where('id', '=', o.id).execute();
      await this.audit(tx, actor, 'org.rename', 'org', o.id, { from: o.name, to: name });
    });
    return { ...o, name };
  }

  async createTeam(actor: string, orgRef: string, name: string): Promise<Team> {
    checkName(name);
    const o = await this.org(orgRef);
    const row = { id: newId('team'), org_id: o.id, name, created_at: this.now() };
    await this.write('team', name, async (tx) => {
      await tx.insertInto('teams').values(row).execute();
      await this.audit(tx, actor, 'team.create', 'team', row.id, { name, org_id: o.id });
    });
    return row;
  }

  async listTeams(orgRef?: string): Promise<Team[]> {
    let q = this.db.selectFrom('teams').selectAll().orderBy('created_at').orderBy('id');
    if (orgRef) q = q.where('org_id', '=', (await this.org(orgRef)).id);
    return q.execute();
  }

  async renameTeam(actor: string, ref: string, name: string): Promise<Team> {
    checkName(name);
    const t = await this.team(ref);
    await this.write('team', name, async (tx) => {
      await tx.updateTable('teams').set({ name }).where('id', '=', t.id).execute();
      await this.audit(tx, actor, 'team.rename', 'team', t.id, { from: t.name, to: name });
    });
    return { ...t, name };
  }

  async createProject(actor: string, teamRef: string, name: string, band?: string): Promise<Project> {
    checkName(name);
    const t = await this.team(teamRef);
    const row = { id: newId('project'), team_id: t.id, name, band: band || null, created_at: this.now() };
    await this.write('project', name, async (tx) => {
      await tx.insertInto('projects').values(row).execute();
      await this.audit(tx, actor, 'project.create', 'project', row.id, { name, team_id: t.id, band: row.band });
    });
    return row;
  }

  async listProjects(teamRef?: string): Promise<Project[]> {
    let q = this.db.selectFrom('projects').selectAll().orderBy('created_at').orderBy('id');
    if (teamRef) q = q.where('team_id', '=', (await this.team(teamRef)).id);
    return q.execute();
  }

  async updateProject(actor: string, ref: string, upd: { name?: string; band?: string | null }): Promise<Project> {
    const p = await this.project(ref);
    const set: Partial<Project> = {};
    if (upd.name) set.name = checkName(upd.name);
    if (upd.band !== undefined) set.band = upd.band;
    if (!Object.keys(set).length) return p;
    await this.write('project', upd.name ?? p.name, async (tx) => {
      await tx.updateTable('projects').set(set).where('id', '=', p.id).execute();
      await this.audit(tx, actor, 'project.update', 'project', p.id, set);
    });
    await this.invalidate('project', p.id);
    return { ...p, ...set };
  }

  // --- keys ----------------------------------------------------------------

  /** Mints a key; the secret is returned here and nowhere else. */
  async createKey(actor: string, projectRef: string, opts: { name: string; band?: string; routingProfile?: string; expiresAt?: number }): Promise<{ row: ApiKeyRow; secret: string }> {
    checkName(opts.name);
    const p = await this.project(projectRef);
    if (opts.expiresAt !== undefined && opts.expiresAt <= this.now()) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'expires_at is in the past');
    const minted = mintApiKey();
    const row: ApiKeyRow = {
      id: newId('key'), key_hash: minted.hash, key_prefix: minted.prefix, name: opts.name, project_id: p.id,
      band: opts.band || null, routing_profile: opts.routingProfile || null, created_at: this.now(),
      expires_at: opts.expiresAt ?? null, revoked_at: null, last_used_at: null,
    };
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('api_keys').values(row).execute();
      await this.audit(tx, actor, 'key.create', 'key', row.id, { name: row.name, project_id: p.id, key_prefix: row.key_prefix, band: row.band, routing_profile: row.routing_profile, expires_at: row.expires_at });
    });
    // Nothing is cached for a new key; the event publishes its record (apps/accounting/src/key-publisher.ts).
    await this.invalidate('key', row.id);
    return { row, secret: minted.key };
  }

  async listKeys(projectRef?: string, includeRevoked = false): Promise<ApiKeyRow[]> {
    let q = this.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id');
    if (projectRef) q = q.where('project_id', '=', (await this.project(projectRef)).id);
    if (!includeRevoked) q = q.where('revoked_at', 'is', null);
    return q.execute();
  }

  /** Soft delete; idempotent (a second revoke keeps the first time). */
  async revokeKey(actor: string, ref: string): Promise<ApiKeyRow> {
    const k = await this.key(ref);
    if (k.revoked_at !== null) return k;
    const at = this.now();
    await this.db.transaction().execute(async (tx) => {
      await tx.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', k.id).execute();
      await this.audit(tx, actor, 'key.revoke', 'key', k.id, { key_prefix: k.key_prefix });
    });
    await this.invalidate('key', k.id);
    return { ...k, revoked_at: at };
  }

  async updateKey(actor: string, ref: string, upd: { name?: string; band?: string | null; routingProfile?: string | null; expiresAt?: number | null }): Promise<ApiKeyRow> {
    const k = await this.key(ref);
    const set: Partial<ApiKeyRow> = {};
    if (upd.name) set.name = checkName(upd.name);
    if (upd.band !== undefined) set.band = upd.band;
    if (upd.routingProfile !== undefined) set.routing_profile = upd.routingProfile;
    if (upd.expiresAt !== undefined) set.expires_at = upd.expiresAt;
    if (!Object.keys(set).length) return k;
    await this.db.transaction().execute(async (tx) => {
      await tx.updateTable('api_keys').set(set).where('id', '=', k.id).execute();
      await this.audit(tx, actor, 'key.update', 'key', k.id, set);
    });
    await this.invalidate('key', k.id);
    return { ...k, ...set };
  }

  // --- limits --------------------------------------------------------------

  async setLimit(actor: string, type: ScopeType, ref: string, l: LimitInput): Promise<LimitRow> {
    const id = await this.scopeId(type, ref);
    for (const [k, v] of Object.entries({ rpm: l.rpm, tpm: l.tpm, budget: l.budgetMicros })) {
      if (v !== undefined && (!Number.isSafeInteger(v) || v < 0)) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${k} must be a non-negative integer`);
    }
    if (l.budgetPeriod !== undefined && l.budgetPeriod !== 'day' && l.budgetPeriod !== 'month') throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'budget period must be "day" or "month"');
    const row: LimitRow = {
      scope_type: type, scope_id: id, rpm: l.rpm ?? null, tpm: l.tpm ?? null, budget_micros: l.budgetMicros ?? null,
      budget_period: l.budgetMicros !== undefined ? (l.budgetPeriod ?? 'month') : null,
      allowed_models: l.allowedModels === undefined ? null : JSON.stringify([...new Set(l.allowedModels)].sort()),
      updated_at: this.now(),
    };
    await this.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('limits')
        .values(row)
        .onConflict((oc) => oc.columns(['scope_type', 'scope_id']).doUpdateSet({ rpm: row.rpm, tpm: row.tpm, budget_micros: row.budget_micros, budget_period: row.budget_period, allowed_models: row.allowed_models, updated_at: row.updated_at }))
        .execute();
      await this.audit(tx, actor, 'limit.set', type, id, { rpm: row.rpm, tpm: row.tpm, budget_micros: row.budget_micros, budget_period: row.budget_period, allowed_models: row.allowed_models === null ? null : JSON.parse(row.allowed_models) });
    });
    await this.invalidate(type, id);
    return row;
  }

  async getLimit(type: ScopeType, ref: string): Promise<LimitRow> {
    const id = await this.scopeId(type, ref);
    const r = await this.db.selectFrom('limits').selectAll().where('scope_type', '=', type).where('scope_id', '=', id).executeTakeFirst();
    return r ?? { scope_type: type, scope_id: id, rpm: null, tpm: null, budget_micros: null, budget_period: null, allowed_models: null, updated_at: 0 };
  }

  listLimits(): Promise<LimitRow[]> {
    return this.db.selectFrom('limits').selectAll().orderBy('scope_type').orderBy('scope_id').execute();
  }

  // --- resolution ----------------------------------------------------------

  /** The key's chain, or undefined for an unknown hash. */
  async chainByHash(hash: string): Promise<KeyChain | undefined> {
    const key = await this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
    return key ? this.chainOf(key) : undefined;
  }

  async chainOf(key: ApiKeyRow): Promise<KeyChain> {
    const project = await this.db.selectFrom('projects').selectAll().where('id', '=', key.project_id).executeTakeFirstOrThrow();
    const team = await this.db.selectFrom('teams').selectAll().where('id', '=', project.team_id).executeTakeFirstOrThrow();
    const org = await this.db.selectFrom('organizations').selectAll().where('id', '=', team.org_id).executeTakeFirstOrThrow();
    return { key, project, team, org };
  }

  /** The principal of an active key: most restrictive limits along key → project → team → org. */
  async principalOf(chain: KeyChain): Promise<Principal> {
    const scopes: Array<[ScopeType, string]> = [['key', chain.key.id], ['project', chain.project.id], ['team', chain.team.id], ['org', chain.org.id]];
    const rows = await this.db
      .selectFrom('limits')
      .selectAll()
      .where((eb) => eb.or(scopes.map(([t, id]) => eb.and([eb('scope_type', '=', t), eb('scope_id', '=', id)]))))
      .execute();
    const levels: LevelLimits[] = scopes.map(([t, id]) => {
      const r = rows.find((x) => x.scope_type === t && x.scope_id === id);
      return {
        scopeType: t, scopeId: id,
        rpm: r?.rpm ?? undefined, tpm: r?.tpm ?? undefined,
        budgetMicros: r?.budget_micros ?? undefined, budgetPeriod: (r?.budget_period as BudgetPeriod | null) ?? undefined,
        allowedModels: r?.allowed_models ? (JSON.parse(r.allowed_models) as string[]) : undefined,
      };
    });
    return {
      keyId: chain.key.id, keyPrefix: chain.key.key_prefix, projectId: chain.project.id, teamId: chain.team.id, orgId: chain.org.id,
      band: chain.key.band ?? chain.project.band ?? '',
      routingProfile: chain.key.routing_profile ?? undefined,
      limits: resolveLimits(levels),
      expiresAt: chain.key.expires_at ?? undefined,
    };
  }

  /** Resolves a key hash; NOT_FOUND for unknown, revoked or expired keys. */
  async resolve(hash: string): Promise<Principal> {
    const chain = await this.chainByHash(hash);
    if (!chain || chain.key.revoked_at !== null || (chain.key.expires_at !== null && chain.key.expires_at <= this.now())) {
      throw new LlmgwError('LLMGW_ERR_NOT_FOUND', 'no active key with this hash');
    }
    return this.principalOf(chain);
  }

  listAudit(opts: { sinceMs?: number; limit?: number; targetId?: string }): Promise<AuditRow[]> {
    let q = this.db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(Math.min(Math.max(opts.limit || 100, 1), 10_000));
    if (opts.sinceMs) q = q.where('ts', '>=', opts.sinceMs);
    if (opts.targetId) q = q.where('target_id', '=', opts.targetId);
    return q.execute();
  }

  private async write(what: string, name: string, fn: (tx: Transaction<Database>) => Promise<void>): Promise<void> {
    try {
      await this.db.transaction().execute(fn);
    } catch (e) {
      if (isUniqueViolation(e)) throw new LlmgwError('LLMGW_ERR_ALREADY_EXISTS', `${what} "${name}" already exists`);
      throw e;
    }
  }
}

function checkName(name: string): string {
  if (!name || name.length > 200 || /[\n\r\t]/.test(name)) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'a name must be 1–200 characters without control characters');
  return name;
}

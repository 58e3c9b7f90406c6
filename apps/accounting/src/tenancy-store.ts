import { type ApiKeyRow, type AuditRow, type Database, type LimitRow, type Organization, type Project, type Team } from '@llmgw/db';
import { LlmgwError } from '@llmgw/errors';
import { type ScopeType, mintApiKey } from '@llmgw/tenancy';
import { type Principal, detailOf } from '@llmgw/contracts';
import type { KeyCacheBus } from '@llmgw/stores';
import { type Kysely, type Transaction } from 'kysely';
import { idempotent, runWrite, type WriteOptions } from './admin-writes';
import { chainOf, principalOf, type KeyChain } from './key-chain';
import { KeySeal, type StoredKey } from './key-seal';
import { checkLimit, limitDetails, limitRow, upsertLimit, type LimitInput } from './limit-writes';
import { checkName, checkRef, checkTime, newId, notFound } from './tenancy-checks';

export { checkName, checkRef, checkTime, PG_INT_MAX } from './tenancy-checks';
export type { WriteOptions } from './admin-writes';
export type { KeyChain } from './key-chain';
export type { LimitInput } from './limit-writes';

/**
 * The tenancy tree in the database: create/list/show/update, key minting and
 * revocation, limits, key resolution and the audit log. Every change is one
 * transaction that also writes its audit event, then publishes a key-cache
 * invalidation for the changed scope.
 */
export class TenancyStore {
  private readonly keySeal = new KeySeal();
  constructor(
    private readonly db: Kysely<Database>,
    private readonly bus: KeyCacheBus,
    private readonly now: () => number = Date.now,
  ) {}

  private async audit(
    tx: Transaction<Database> | Kysely<Database>,
    actor: string,
    action: string,
    targetType: string,
    targetId: string,
    details: object,
  ): Promise<void> {
    await tx
      .insertInto('audit_log')
      .values({ ts: this.now(), actor, action, target_type: targetType, target_id: targetId, details: JSON.stringify(details) })
      .execute();
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

  async org(ref: string, field = 'ref'): Promise<Organization> {
    checkRef(ref, field);
    const r = await this.db
      .selectFrom('organizations')
      .selectAll()
      .where((eb) => eb.or([eb('id', '=', ref), eb('name', '=', ref)]))
      .executeTakeFirst();
    if (!r) throw notFound('organization', ref);
    return r;
  }

  private async unique<T>(rows: T[], what: string, ref: string): Promise<T> {
    if (rows.length === 0) throw notFound(what, ref);
    if (rows.length > 1) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${what} name "${detailOf(ref)}" is ambiguous; use its id`);
    return rows[0];
  }

  async team(ref: string, field = 'ref'): Promise<Team> {
    checkRef(ref, field);
    return this.unique(
      await this.db
        .selectFrom('teams')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', ref), eb('name', '=', ref)]))
        .execute(),
      'team',
      ref,
    );
  }

  async project(ref: string, field = 'ref'): Promise<Project> {
    checkRef(ref, field);
    return this.unique(
      await this.db
        .selectFrom('projects')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', ref), eb('name', '=', ref)]))
        .execute(),
      'project',
      ref,
    );
  }

  async key(ref: string, field = 'ref'): Promise<ApiKeyRow> {
    checkRef(ref, field);
    return this.unique(
      await this.db
        .selectFrom('api_keys')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', ref), eb('name', '=', ref), eb('key_prefix', '=', ref)]))
        .execute(),
      'key',
      ref,
    );
  }

  async scopeId(type: ScopeType, ref: string, field = 'scope'): Promise<string> {
    if (type === 'org') return (await this.org(ref, field)).id;
    if (type === 'team') return (await this.team(ref, field)).id;
    if (type === 'project') return (await this.project(ref, field)).id;
    return (await this.key(ref, field)).id;
  }

  // --- organizations, teams, projects --------------------------------------

  async createOrg(actor: string, name: string, o?: WriteOptions): Promise<Organization> {
    checkName(name);
    return this.idempotent(o, 'CreateOrg', async () => {
      const row = { id: newId('org'), name, created_at: this.now() };
      await this.write(o, 'CreateOrg', row, `organization "${detailOf(name)}"`, async (tx) => {
        await tx.insertInto('organizations').values(row).execute();
        await this.audit(tx, actor, 'org.create', 'org', row.id, { name });
      });
      return row;
    });
  }

  listOrgs(): Promise<Organization[]> {
    return this.db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  async renameOrg(actor: string, ref: string, name: string, w?: WriteOptions): Promise<Organization> {
    checkName(name);
    return this.idempotent(w, 'RenameOrg', async () => {
      const o = await this.org(ref);
      const res = { ...o, name };
      await this.write(w, 'RenameOrg', res, `organization "${detailOf(name)}"`, async (tx) => {
        await tx.updateTable('organizations').set({ name }).where('id', '=', o.id).execute();
        await this.audit(tx, actor, 'org.rename', 'org', o.id, { from: o.name, to: name });
      });
      return res;
    });
  }

  async createTeam(actor: string, orgRef: string, name: string, w?: WriteOptions): Promise<Team> {
    checkName(name);
    return this.idempotent(w, 'CreateTeam', async () => {
      const o = await this.org(orgRef, 'org');
      const row = { id: newId('team'), org_id: o.id, name, created_at: this.now() };
      await this.write(w, 'CreateTeam', row, `team "${detailOf(name)}"`, async (tx) => {
        await tx.insertInto('teams').values(row).execute();
        await this.audit(tx, actor, 'team.create', 'team', row.id, { name, org_id: o.id });
      });
      return row;
    });
  }

  async listTeams(orgRef?: string): Promise<Team[]> {
    let q = this.db.selectFrom('teams').selectAll().orderBy('created_at').orderBy('id');
    if (orgRef) q = q.where('org_id', '=', (await this.org(orgRef, 'org')).id);
    return q.execute();
  }

  async renameTeam(actor: string, ref: string, name: string, w?: WriteOptions): Promise<Team> {
    checkName(name);
    return this.idempotent(w, 'RenameTeam', async () => {
      const t = await this.team(ref);
      const res = { ...t, name };
      await this.write(w, 'RenameTeam', res, `team "${detailOf(name)}"`, async (tx) => {
        await tx.updateTable('teams').set({ name }).where('id', '=', t.id).execute();
        await this.audit(tx, actor, 'team.rename', 'team', t.id, { from: t.name, to: name });
      });
      return res;
    });
  }

  async createProject(actor: string, teamRef: string, name: string, band?: string, w?: WriteOptions): Promise<Project> {
    checkName(name);
    if (band) checkName(band, 'band');
    return this.idempotent(w, 'CreateProject', async () => {
      const t = await this.team(teamRef, 'team');
      const row = { id: newId('project'), team_id: t.id, name, band: band || null, created_at: this.now() };
      await this.write(w, 'CreateProject', row, `project "${detailOf(name)}"`, async (tx) => {
        await tx.insertInto('projects').values(row).execute();
        await this.audit(tx, actor, 'project.create', 'project', row.id, { name, team_id: t.id, band: row.band });
      });
      return row;
    });
  }

  async listProjects(teamRef?: string): Promise<Project[]> {
    let q = this.db.selectFrom('projects').selectAll().orderBy('created_at').orderBy('id');
    if (teamRef) q = q.where('team_id', '=', (await this.team(teamRef, 'team')).id);
    return q.execute();
  }

  async updateProject(actor: string, ref: string, upd: { name?: string; band?: string | null }, w?: WriteOptions): Promise<Project> {
    if (upd.name) checkName(upd.name);
    if (upd.band) checkName(upd.band, 'band');
    return this.idempotent(w, 'UpdateProject', async () => {
      const p = await this.project(ref);
      const set: Partial<Project> = {};
      if (upd.name) set.name = upd.name;
      if (upd.band !== undefined) set.band = upd.band;
      if (!Object.keys(set).length) return p;
      const res = { ...p, ...set };
      await this.write(w, 'UpdateProject', res, `project "${detailOf(upd.name ?? p.name)}"`, async (tx) => {
        await tx.updateTable('projects').set(set).where('id', '=', p.id).execute();
        await this.audit(tx, actor, 'project.update', 'project', p.id, set);
      });
      await this.invalidate('project', p.id);
      return res;
    });
  }

  // --- keys ----------------------------------------------------------------

  /** Mints a key; the secret is returned here and nowhere else. */
  /**
   * Mints a key; the secret is returned here and nowhere else. A repeat with
   * the same request key returns the same key and secret while this process
   * runs; the secret is kept only sealed with a key held in memory, so after
   * a restart a repeat answers FAILED_PRECONDITION naming the key to revoke.
   */
  async createKey(
    actor: string,
    projectRef: string,
    opts: { name: string; band?: string; routingProfile?: string; expiresAt?: number },
    w?: WriteOptions,
  ): Promise<{ row: ApiKeyRow; secret: string }> {
    checkName(opts.name);
    if (opts.band) checkName(opts.band, 'band');
    if (opts.routingProfile) checkName(opts.routingProfile, 'routing_profile');
    if (opts.expiresAt !== undefined) checkTime(opts.expiresAt, 'expires_at_ms');
    const revive = (stored: StoredKey) => ({ row: stored.row, secret: this.keySeal.unseal(stored) });
    return this.idempotent<{ row: ApiKeyRow; secret: string }, StoredKey>(
      w,
      'CreateKey',
      async () => {
        const p = await this.project(projectRef, 'project');
        if (opts.expiresAt !== undefined && opts.expiresAt <= this.now()) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'expires_at_ms is in the past');
        const minted = mintApiKey();
        const row: ApiKeyRow = {
          id: newId('key'),
          key_hash: minted.hash,
          key_prefix: minted.prefix,
          name: opts.name,
          project_id: p.id,
          band: opts.band || null,
          routing_profile: opts.routingProfile || null,
          created_at: this.now(),
          expires_at: opts.expiresAt ?? null,
          revoked_at: null,
          last_used_at: null,
        };
        const stored: StoredKey = { row, sealed: this.keySeal.seal(minted.key) };
        await this.write(w, 'CreateKey', stored, `key "${detailOf(opts.name)}" in project ${p.id}`, async (tx) => {
          await tx.insertInto('api_keys').values(row).execute();
          await this.audit(tx, actor, 'key.create', 'key', row.id, {
            name: row.name,
            project_id: p.id,
            key_prefix: row.key_prefix,
            band: row.band,
            routing_profile: row.routing_profile,
            expires_at: row.expires_at,
          });
        });
        // Nothing is cached for a new key; the event publishes its record (apps/accounting/src/key-publisher.ts).
        await this.invalidate('key', row.id);
        return { row, secret: minted.key };
      },
      revive,
    );
  }

  async listKeys(projectRef?: string, includeRevoked = false): Promise<ApiKeyRow[]> {
    let q = this.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id');
    if (projectRef) q = q.where('project_id', '=', (await this.project(projectRef, 'project')).id);
    if (!includeRevoked) q = q.where('revoked_at', 'is', null);
    return q.execute();
  }

  /** Soft delete; idempotent (a second revoke keeps the first time). */
  async revokeKey(actor: string, ref: string, w?: WriteOptions): Promise<ApiKeyRow> {
    const k = await this.key(ref);
    if (k.revoked_at !== null) return k;
    const at = this.now();
    // Naturally idempotent: a repeat finds the key revoked and returns it; the request key is not recorded.
    await this.write({ signal: w?.signal }, 'RevokeKey', undefined, 'key', async (tx) => {
      await tx.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', k.id).execute();
      await this.audit(tx, actor, 'key.revoke', 'key', k.id, { key_prefix: k.key_prefix });
    });
    await this.invalidate('key', k.id);
    return { ...k, revoked_at: at };
  }

  async updateKey(
    actor: string,
    ref: string,
    upd: { name?: string; band?: string | null; routingProfile?: string | null; expiresAt?: number | null },
    w?: WriteOptions,
  ): Promise<ApiKeyRow> {
    if (upd.name) checkName(upd.name);
    if (upd.band) checkName(upd.band, 'band');
    if (upd.routingProfile) checkName(upd.routingProfile, 'routing_profile');
    if (upd.expiresAt) checkTime(upd.expiresAt, 'expires_at_ms');
    return this.idempotent(w, 'UpdateKey', async () => {
      const k = await this.key(ref);
      const set: Partial<ApiKeyRow> = {};
      if (upd.name) set.name = upd.name;
      if (upd.band !== undefined) set.band = upd.band;
      if (upd.routingProfile !== undefined) set.routing_profile = upd.routingProfile;
      if (upd.expiresAt !== undefined) set.expires_at = upd.expiresAt;
      if (!Object.keys(set).length) return k;
      const res = { ...k, ...set };
      await this.write(w, 'UpdateKey', res, `key "${detailOf(upd.name ?? k.name)}" in project ${k.project_id}`, async (tx) => {
        await tx.updateTable('api_keys').set(set).where('id', '=', k.id).execute();
        await this.audit(tx, actor, 'key.update', 'key', k.id, set);
      });
      await this.invalidate('key', k.id);
      return res;
    });
  }

  // --- limits --------------------------------------------------------------

  async setLimit(actor: string, type: ScopeType, ref: string, l: LimitInput, w?: WriteOptions): Promise<LimitRow> {
    checkLimit(l);
    return this.idempotent(w, 'SetLimit', () => this.setLimitNow(actor, type, ref, l, w));
  }

  private async setLimitNow(actor: string, type: ScopeType, ref: string, l: LimitInput, w?: WriteOptions): Promise<LimitRow> {
    const id = await this.scopeId(type, ref);
    const row = limitRow(type, id, l, this.now());
    await this.write(w, 'SetLimit', row, 'limit', async (tx) => {
      await upsertLimit(tx, row);
      await this.audit(tx, actor, 'limit.set', type, id, limitDetails(row));
    });
    await this.invalidate(type, id);
    return row;
  }

  async getLimit(type: ScopeType, ref: string): Promise<LimitRow> {
    // (scopeId checks the reference)
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

  /** The key with the project, team and organization above it. */
  chainOf(key: ApiKeyRow): Promise<KeyChain> {
    return chainOf(this.db, key);
  }

  /** The principal of an active key: most restrictive limits along key → project → team → org. */
  principalOf(chain: KeyChain): Promise<Principal> {
    return principalOf(this.db, chain);
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
    if (opts.sinceMs !== undefined) checkTime(opts.sinceMs, 'since_ms', true);
    if (opts.targetId) checkRef(opts.targetId, 'target_id', 300);
    let q = this.db
      .selectFrom('audit_log')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(Math.min(Math.max(opts.limit || 100, 1), 10_000));
    if (opts.sinceMs) q = q.where('ts', '>=', opts.sinceMs);
    if (opts.targetId) q = q.where('target_id', '=', opts.targetId);
    return q.execute();
  }

  private write(w: WriteOptions | undefined, method: string, result: unknown, what: string, fn: (tx: Transaction<Database>) => Promise<void>): Promise<void> {
    return runWrite(this.db, this.now, w, method, result, what, fn);
  }

  private idempotent<T, S = T>(w: WriteOptions | undefined, method: string, run: () => Promise<T>, revive?: (stored: S) => T): Promise<T> {
    return idempotent(this.db, w, method, run, revive);
  }

  /** Forgets request keys older than `windowMs` (the rollup timer calls it). */
  async pruneRequests(windowMs: number): Promise<number> {
    const r = await this.db
      .deleteFrom('admin_requests')
      .where('created_at', '<', this.now() - windowMs)
      .executeTakeFirst();
    return Number(r.numDeletedRows ?? 0);
  }
}

import { type ApiKeyRow, type Database, type Organization, type Project, type Team } from '@llmgw/db';
import { type BudgetPeriod, type LevelLimits, type ScopeType, resolveLimits } from '@llmgw/tenancy';
import type { Principal } from '@llmgw/contracts';
import type { Kysely } from 'kysely';

export interface KeyChain {
  key: ApiKeyRow;
  project: Project;
  team: Team;
  org: Organization;
}

/** The key with the project, team and organization above it. */
export async function chainOf(db: Kysely<Database>, key: ApiKeyRow): Promise<KeyChain> {
  const project = await db.selectFrom('projects').selectAll().where('id', '=', key.project_id).executeTakeFirstOrThrow();
  const team = await db.selectFrom('teams').selectAll().where('id', '=', project.team_id).executeTakeFirstOrThrow();
  const org = await db.selectFrom('organizations').selectAll().where('id', '=', team.org_id).executeTakeFirstOrThrow();
  return { key, project, team, org };
}

/** The principal of an active key: most restrictive limits along key → project → team → org. */
export async function principalOf(db: Kysely<Database>, chain: KeyChain): Promise<Principal> {
  const scopes: Array<[ScopeType, string]> = [
    ['key', chain.key.id],
    ['project', chain.project.id],
    ['team', chain.team.id],
    ['org', chain.org.id],
  ];
  const rows = await db
    .selectFrom('limits')
    .selectAll()
    .where((eb) => eb.or(scopes.map(([t, id]) => eb.and([eb('scope_type', '=', t), eb('scope_id', '=', id)]))))
    .execute();
  const levels: LevelLimits[] = scopes.map(([t, id]) => {
    const r = rows.find((x) => x.scope_type === t && x.scope_id === id);
    return {
      scopeType: t,
      scopeId: id,
      rpm: r?.rpm ?? undefined,
      tpm: r?.tpm ?? undefined,
      budgetMicros: r?.budget_micros ?? undefined,
      budgetPeriod: (r?.budget_period as BudgetPeriod | null) ?? undefined,
      allowedModels: r?.allowed_models ? (JSON.parse(r.allowed_models) as string[]) : undefined,
    };
  });
  return {
    keyId: chain.key.id,
    keyPrefix: chain.key.key_prefix,
    projectId: chain.project.id,
    teamId: chain.team.id,
    orgId: chain.org.id,
    band: chain.key.band ?? chain.project.band ?? '',
    routingProfile: chain.key.routing_profile ?? undefined,
    limits: resolveLimits(levels),
    expiresAt: chain.key.expires_at ?? undefined,
  };
}

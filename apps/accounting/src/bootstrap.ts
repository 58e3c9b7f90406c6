import type { TenancyStore } from './tenancy-store';

export interface DemoTenant {
  orgId: string;
  teamId: string;
  projectId: string;
  keyId: string;
  /** The demo key's secret on the first start; undefined when it already existed (it is never shown twice). */
  secret?: string;
}

/**
 * Creates the demo organization → team → project → key on first start, for
 * `llmgw up`. Idempotent: on later starts it finds them and returns no
 * secret (the key was shown once, when it was made).
 */
export async function ensureDemoTenant(tenancy: TenancyStore, names = { org: 'demo', team: 'demo', project: 'demo', key: 'demo-key' }): Promise<DemoTenant> {
  const actor = 'llmgw up (bootstrap)';
  const org = (await tenancy.listOrgs()).find((o) => o.name === names.org) ?? (await tenancy.createOrg(actor, names.org));
  const team = (await tenancy.listTeams(org.id)).find((t) => t.name === names.team) ?? (await tenancy.createTeam(actor, org.id, names.team));
  const project = (await tenancy.listProjects(team.id)).find((p) => p.name === names.project) ?? (await tenancy.createProject(actor, team.id, names.project));
  const existing = (await tenancy.listKeys(project.id, true)).find((k) => k.name === names.key);
  if (existing) return { orgId: org.id, teamId: team.id, projectId: project.id, keyId: existing.id };
  const { row, secret } = await tenancy.createKey(actor, project.id, { name: names.key });
  return { orgId: org.id, teamId: team.id, projectId: project.id, keyId: row.id, secret };
}

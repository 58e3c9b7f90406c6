import type { Command } from 'commander';
import type { accountingV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { fields, table, time, usage } from '../format';
import { withJson } from './shared';

/** `ctl org …` */
export function registerOrg(program: Command, ctx: CtlContext): void {
  const org = program.command('org').description('organizations: the top of the tenancy tree (org → team → project → key)');
  withJson(org.command('create <name>').description('create an organization')).action(async (name: string, _o, cmd: Command) => {
    const o = await ctx.accounting(cmd).call<accountingV1.Org__Output>('CreateOrg', { name });
    ctx.out(cmd, o, () => `created organization ${o.name} (${o.id})`);
  });
  withJson(org.command('list').description('list organizations')).action(async (_o, cmd: Command) => {
    const r = await ctx.accounting(cmd).call<accountingV1.ListOrgsResponse__Output>('ListOrgs', {});
    ctx.out(cmd, r.orgs, () =>
      table(
        ['ID', 'NAME', 'CREATED'],
        r.orgs.map((x) => [x.id, x.name, time(x.createdAtMs)]),
      ),
    );
  });
  withJson(org.command('show <org>').description('show an organization (id or name), its teams and its limits')).action(
    async (ref: string, _o, cmd: Command) => {
      const a = ctx.accounting(cmd);
      const o = await a.call<accountingV1.Org__Output>('GetOrg', { ref });
      const teams = await a.call<accountingV1.ListTeamsResponse__Output>('ListTeams', { org: o.id });
      const limit = await a.call<accountingV1.Limit__Output>('GetLimit', { scopeType: 'org', scope: o.id });
      ctx.out(cmd, { ...o, teams: teams.teams, limit }, () =>
        [
          fields({ id: o.id, name: o.name, created: time(o.createdAtMs), limits: limitSummary(limit) }),
          '',
          table(
            ['TEAM', 'NAME'],
            teams.teams.map((t) => [t.id, t.name]),
          ),
        ].join('\n'),
      );
    },
  );
  withJson(org.command('set <org>').description('rename an organization').requiredOption('--name <name>', 'new name')).action(
    async (ref: string, o: { name: string }, cmd: Command) => {
      const r = await ctx.accounting(cmd).call<accountingV1.Org__Output>('RenameOrg', { ref, name: o.name });
      ctx.out(cmd, r, () => `organization ${r.id} is now ${r.name}`);
    },
  );
}

/** `ctl team …` */
export function registerTeam(program: Command, ctx: CtlContext): void {
  const team = program.command('team').description('teams: belong to an organization, own projects');
  withJson(team.command('create <name>').description('create a team').requiredOption('--org <org>', 'organization id or name')).action(
    async (name: string, o: { org: string }, cmd: Command) => {
      const t = await ctx.accounting(cmd).call<accountingV1.Team__Output>('CreateTeam', { org: o.org, name });
      ctx.out(cmd, t, () => `created team ${t.name} (${t.id}) in ${t.orgId}`);
    },
  );
  withJson(team.command('list').description('list teams').option('--org <org>', 'only this organization')).action(async (o: { org?: string }, cmd: Command) => {
    const r = await ctx.accounting(cmd).call<accountingV1.ListTeamsResponse__Output>('ListTeams', { org: o.org ?? '' });
    ctx.out(cmd, r.teams, () =>
      table(
        ['ID', 'NAME', 'ORG', 'CREATED'],
        r.teams.map((x) => [x.id, x.name, x.orgId, time(x.createdAtMs)]),
      ),
    );
  });
  withJson(team.command('show <team>').description('show a team, its projects and its limits')).action(async (ref: string, _o, cmd: Command) => {
    const a = ctx.accounting(cmd);
    const t = await a.call<accountingV1.Team__Output>('GetTeam', { ref });
    const projects = await a.call<accountingV1.ListProjectsResponse__Output>('ListProjects', { team: t.id });
    const limit = await a.call<accountingV1.Limit__Output>('GetLimit', { scopeType: 'team', scope: t.id });
    ctx.out(cmd, { ...t, projects: projects.projects, limit }, () =>
      [
        fields({ id: t.id, name: t.name, org: t.orgId, created: time(t.createdAtMs), limits: limitSummary(limit) }),
        '',
        table(
          ['PROJECT', 'NAME'],
          projects.projects.map((p) => [p.id, p.name]),
        ),
      ].join('\n'),
    );
  });
  withJson(team.command('set <team>').description('rename a team').requiredOption('--name <name>', 'new name')).action(
    async (ref: string, o: { name: string }, cmd: Command) => {
      const r = await ctx.accounting(cmd).call<accountingV1.Team__Output>('RenameTeam', { ref, name: o.name });
      ctx.out(cmd, r, () => `team ${r.id} is now ${r.name}`);
    },
  );
}

/** `ctl project …` */
export function registerProject(program: Command, ctx: CtlContext): void {
  const project = program.command('project').description('projects: belong to a team, own API keys');
  withJson(
    project
      .command('create <name>')
      .description('create a project')
      .requiredOption('--team <team>', 'team id or name')
      .option('--band <band>', 'default priority band of its keys'),
  ).action(async (name: string, o: { team: string; band?: string }, cmd: Command) => {
    const p = await ctx.accounting(cmd).call<accountingV1.Project__Output>('CreateProject', { team: o.team, name, band: o.band ?? '' });
    ctx.out(cmd, p, () => `created project ${p.name} (${p.id}) in ${p.teamId}`);
  });
  withJson(project.command('list').description('list projects').option('--team <team>', 'only this team')).action(
    async (o: { team?: string }, cmd: Command) => {
      const r = await ctx.accounting(cmd).call<accountingV1.ListProjectsResponse__Output>('ListProjects', { team: o.team ?? '' });
      ctx.out(cmd, r.projects, () =>
        table(
          ['ID', 'NAME', 'TEAM', 'BAND', 'CREATED'],
          r.projects.map((x) => [x.id, x.name, x.teamId, x.band || '-', time(x.createdAtMs)]),
        ),
      );
    },
  );
  withJson(project.command('show <project>').description('show a project, its keys and its limits')).action(async (ref: string, _o, cmd: Command) => {
    const a = ctx.accounting(cmd);
    const p = await a.call<accountingV1.Project__Output>('GetProject', { ref });
    const keys = await a.call<accountingV1.ListKeysResponse__Output>('ListKeys', { project: p.id });
    const limit = await a.call<accountingV1.Limit__Output>('GetLimit', { scopeType: 'project', scope: p.id });
    ctx.out(cmd, { ...p, keys: keys.keys, limit }, () =>
      [
        fields({ id: p.id, name: p.name, team: p.teamId, band: p.band || '-', created: time(p.createdAtMs), limits: limitSummary(limit) }),
        '',
        table(
          ['KEY', 'PREFIX', 'NAME'],
          keys.keys.map((k) => [k.id, k.keyPrefix + '…', k.name]),
        ),
      ].join('\n'),
    );
  });
  withJson(
    project
      .command('set <project>')
      .description('rename a project or change its default band')
      .option('--name <name>', 'new name')
      .option('--band <band>', 'default band of its keys ("-" clears it)'),
  ).action(async (ref: string, o: { name?: string; band?: string }, cmd: Command) => {
    if (!o.name && o.band === undefined) throw usage('nothing to set: pass --name and/or --band');
    const r = await ctx.accounting(cmd).call<accountingV1.Project__Output>('UpdateProject', { ref, name: o.name ?? '', band: o.band ?? '' });
    ctx.out(cmd, r, () => `project ${r.id}: name ${r.name}, band ${r.band || '-'}`);
  });
}

/** One-line summary of a level's limits. */
export function limitSummary(l: accountingV1.Limit__Output): string {
  const parts: string[] = [];
  if (l.hasRpm) parts.push(`rpm ${l.rpm}`);
  if (l.hasTpm) parts.push(`tpm ${l.tpm}`);
  if (l.hasBudget) parts.push(`budget ${(l.budgetMicros / 1e6).toString()} units/${l.budgetPeriod}`);
  if (l.modelsRestricted) parts.push(`models [${l.allowedModels.join(', ')}]`);
  return parts.length ? parts.join(', ') : 'none (inherits)';
}

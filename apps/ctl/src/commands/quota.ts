import type { Command } from 'commander';
import type { controlV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { table, usage } from '../format';
import { withJson } from './shared';

const SCOPES = ['org', 'team', 'project'];
const CLASSES = ['critical', 'standard', 'opportunistic'];

/** "3 / 8 guaranteed, limit 16" for one quota. */
export function quotaText(q: controlV1.Quota__Output): string {
  return `${q.scope} ${q.name}${q.capacityClass ? ` (${q.capacityClass})` : ''}: ${q.usedGpus} GPUs used, ${q.guaranteeGpus} guaranteed, ${q.hasLimit ? `limit ${q.limitGpus}` : 'no limit'}${q.overridden ? ' (operator override)' : ''}`;
}

/** `ctl quota show|set`: GPU quotas per organisation, team and project (docs/placement.md "Quotas"). */
export function registerQuota(program: Command, ctx: CtlContext): void {
  const quota = program.command('quota').description('GPU quotas of organisations, teams and projects: guarantees, limits and what is used');
  withJson(quota.command('show').description('every quota in force (the catalog, with operator overrides) and the GPUs counted against it')).action(
    async (_o: unknown, cmd: Command) => {
      const r = await ctx.control(cmd).unary<controlV1.ListQuotasResponse__Output>('ListQuotas', {});
      ctx.out(cmd, r.quotas, () =>
        r.quotas.length
          ? table(
              ['SCOPE', 'NAME', 'CLASS', 'USED', 'GUARANTEE', 'LIMIT', 'SOURCE'],
              r.quotas.map((q) => [
                q.scope,
                q.name,
                q.capacityClass || 'all',
                q.usedGpus,
                q.guaranteeGpus,
                q.hasLimit ? q.limitGpus : '-',
                q.overridden ? 'override' : 'catalog',
              ]),
            )
          : 'no quotas (catalog `quotas`, or `llmgw ctl quota set`)',
      );
    },
  );
  withJson(
    quota
      .command('set <scope> <name>')
      .description('override (or with --clear drop the override of) one quota; kept across scheduler restarts and audit-logged')
      .option('--guarantee <gpus>', 'GPUs always available to it (its placements preempt borrowers)', '0')
      .option('--limit <gpus>', 'GPUs never exceeded (default: no limit)')
      .option('--class <class>', `only replicas of this capacity class (${CLASSES.join(', ')}); default every class`)
      .option('--clear', "drop the override: the catalog's quota applies again"),
  ).action(async (scope: string, name: string, o: { guarantee: string; limit?: string; class?: string; clear?: boolean }, cmd: Command) => {
    if (!SCOPES.includes(scope)) throw usage(`scope must be one of ${SCOPES.join(', ')}, got "${scope}"`);
    if (o.class !== undefined && !CLASSES.includes(o.class)) throw usage(`--class must be one of ${CLASSES.join(', ')}, got "${o.class}"`);
    const int = (v: string, what: string) => {
      if (!/^\d+$/.test(v)) throw usage(`${what} must be a non-negative integer, got "${v}"`);
      return Number(v);
    };
    const guarantee = int(o.guarantee, '--guarantee');
    const limit = o.limit !== undefined ? int(o.limit, '--limit') : undefined;
    if (limit !== undefined && limit < guarantee) throw usage(`--limit (${limit}) must be ≥ --guarantee (${guarantee})`);
    const r = await ctx.control(cmd).unary<controlV1.SetQuotaResponse__Output>('SetQuota', {
      scope,
      name,
      capacityClass: o.class ?? '',
      guaranteeGpus: guarantee,
      limitGpus: limit ?? 0,
      hasLimit: limit !== undefined,
      clear: !!o.clear,
    });
    ctx.out(cmd, r, () => `${r.quota ? quotaText(r.quota) : `${scope} ${name}: no quota`}${r.changed ? '' : ' — unchanged'}`);
  });
}

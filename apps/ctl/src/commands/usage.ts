import type { Command } from 'commander';
import { parseDurationMs } from '@llmgw/config';
import type { accountingV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { table, time, units, usage as usageError } from '../format';
import { withJson } from './shared';

/** `ctl usage` and `ctl audit`. */
export function registerUsage(program: Command, ctx: CtlContext): void {
  withJson(
    program
      .command('usage')
      .description('usage totals from the ledger (hourly rollups plus the not-yet-rolled tail)')
      .option('--scope <type:ref>', 'org:<ref> | team:<ref> | project:<ref> | key:<ref>')
      .option('--since <duration>', 'how far back, e.g. 24h, 7d', '24h')
      .option('--by <group>', 'group rows by model | adapter (LoRA adapter) | key | project | team | org | hour | status (HTTP status code)'),
  ).action(async (o: { scope?: string; since: string; by?: string }, cmd: Command) => {
    if (o.by !== undefined && !['model', 'adapter', 'key', 'project', 'team', 'org', 'hour', 'status'].includes(o.by))
      throw usageError(`--by must be model, adapter, key, project, team, org, hour or status, got "${o.by}"`);
    let scope: { scopeType: string; scope: string } | undefined;
    if (o.scope) {
      const m = /^(org|team|project|key):(.+)$/.exec(o.scope);
      if (!m) throw usageError('--scope must look like team:ml or key:key_abc');
      scope = { scopeType: m[1], scope: m[2] };
    }
    let since: number;
    try {
      since = parseDurationMs(o.since);
    } catch (e) {
      throw usageError((e as Error).message);
    }
    const r = await ctx.accounting(cmd).call<accountingV1.QueryUsageResponse__Output>('QueryUsage', { scope, fromMs: Date.now() - since, groupBy: o.by ?? '' });
    ctx.out(cmd, r.rows, () =>
      // REQUESTS are the served ones; refused (4xx: limits, auth, bad input) and failed (5xx) are apart.
      table(
        [(o.by ?? 'total').toUpperCase(), 'REQUESTS', 'REFUSED', 'FAILED', 'PROMPT', 'COMPLETION', 'CACHED', 'COST'],
        r.rows.map((x) => [
          o.by === 'hour' ? time(Number(x.group)) : x.group || (o.by === 'adapter' ? '-' : 'total'),
          x.requests,
          x.refused,
          x.failed,
          x.promptTokens,
          x.completionTokens,
          x.cachedTokens,
          units(x.costMicros),
        ]),
      ),
    );
  });
  withJson(
    program
      .command('audit')
      .description(
        'the audit log: who changed what, when (newest first): tenancy changes, and cordon, drain and model targets done through the placement-scheduler',
      )
      .option('--target <id>', 'only changes to this object id')
      .option('--limit <n>', 'at most this many events', '50'),
  ).action(async (o: { target?: string; limit: string }, cmd: Command) => {
    const r = await ctx.accounting(cmd).call<accountingV1.ListAuditResponse__Output>('ListAudit', { targetId: o.target ?? '', limit: Number(o.limit) || 50 });
    ctx.out(cmd, r.events, () =>
      table(
        ['WHEN', 'WHO', 'WHAT', 'TARGET', 'DETAILS'],
        r.events.map((e) => [time(e.atMs), e.actor, e.action, `${e.targetType}:${e.targetId}`, e.details]),
      ),
    );
  });
}

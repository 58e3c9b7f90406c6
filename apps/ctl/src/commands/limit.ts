import type { Command } from 'commander';
import type { accountingV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { parseCount, parseUnitsToMicros, table, time, units, usage } from '../format';
import { limitSummary } from './tenancy-tree';
import { withJson } from './shared';

const SCOPES = ['org', 'team', 'project', 'key'];

function scopeType(s: string): string {
  if (!SCOPES.includes(s)) throw usage(`scope must be one of ${SCOPES.join(', ')}, got "${s}"`);
  return s;
}

interface SetOpts {
  rpm?: string;
  tpm?: string;
  budget?: string;
  budgetMicros?: string;
  period?: string;
  models?: string;
  replace?: boolean;
}

/** Applies flags to a limit row: a value sets, "none" removes; other fields are kept unless --replace. */
export function applyLimitFlags(cur: accountingV1.Limit__Output, o: SetOpts): accountingV1.Limit {
  const base: accountingV1.Limit = o.replace ? {} : { ...cur };
  const num = (v: string, what: string) => (v === 'none' ? undefined : parseCount(v, what));
  if (o.rpm !== undefined) {
    const v = num(o.rpm, '--rpm');
    Object.assign(base, { hasRpm: v !== undefined, rpm: v ?? 0 });
  }
  if (o.tpm !== undefined) {
    const v = num(o.tpm, '--tpm');
    Object.assign(base, { hasTpm: v !== undefined, tpm: v ?? 0 });
  }
  if (o.budget !== undefined && o.budgetMicros !== undefined) throw usage('pass --budget or --budget-micros, not both');
  const b =
    o.budget !== undefined
      ? o.budget === 'none'
        ? undefined
        : parseUnitsToMicros(o.budget)
      : o.budgetMicros !== undefined
        ? num(o.budgetMicros, '--budget-micros')
        : null;
  if (b !== null) Object.assign(base, { hasBudget: b !== undefined, budgetMicros: b ?? 0 });
  if (o.period !== undefined) {
    if (o.period !== 'day' && o.period !== 'month') throw usage('--period must be day or month');
    base.budgetPeriod = o.period;
  }
  if (base.hasBudget && !base.budgetPeriod) base.budgetPeriod = 'month';
  if (o.models !== undefined) {
    if (o.models === 'all') Object.assign(base, { modelsRestricted: false, allowedModels: [] });
    else
      Object.assign(base, {
        modelsRestricted: true,
        allowedModels: o.models
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean),
      });
  }
  return base;
}

/** `ctl limit …` */
export function registerLimit(program: Command, ctx: CtlContext): void {
  const limit = program
    .command('limit')
    .description('limits on any level (org, team, project, key); the effective limit is the most restrictive along key → project → team → org');
  withJson(
    limit
      .command('set <scope> <ref>')
      .description('set limits of one level; unspecified fields are kept (use --replace to clear them)')
      .option('--rpm <n>', 'requests per minute ("none" removes)')
      .option('--tpm <n>', 'tokens per minute ("none" removes)')
      .option('--budget <units>', 'budget per period in units, e.g. 25.5 ("none" removes)')
      .option('--budget-micros <n>', 'budget per period in integer micro-units')
      .option('--period <period>', 'budget period: day | month (UTC; default month)')
      .option('--models <list>', 'allowed models, comma-separated; "" allows none; "all" removes the restriction')
      .option('--replace', 'start from an empty row instead of the current one')
      .addHelpText(
        'after',
        '\nExamples:\n  llmgw ctl limit set org acme --rpm 600 --budget 1000 --period month\n  llmgw ctl limit set key key_abc --models llama-3.3-70b,qwen2.5-32b\n  llmgw ctl limit set team ml --tpm none',
      ),
  ).action(async (scope: string, ref: string, o: SetOpts, cmd: Command) => {
    const a = ctx.accounting(cmd);
    const st = scopeType(scope);
    if ([o.rpm, o.tpm, o.budget, o.budgetMicros, o.period, o.models].every((v) => v === undefined) && !o.replace)
      throw usage('nothing to set: pass --rpm, --tpm, --budget, --period or --models (or --replace to clear)');
    const cur = await a.call<accountingV1.Limit__Output>('GetLimit', { scopeType: st, scope: ref });
    const next = applyLimitFlags(cur, o);
    const r = await a.call<accountingV1.Limit__Output>('SetLimit', { scope: { scopeType: st, scope: ref }, limit: next });
    ctx.out(cmd, r, () => `${r.scopeType} ${r.scopeId}: ${limitSummary(r)}`);
  });
  withJson(limit.command('show <scope> <ref>').description("show the limits one level sets (for a key's effective limits: ctl key show)")).action(
    async (scope: string, ref: string, _o, cmd: Command) => {
      const r = await ctx.accounting(cmd).call<accountingV1.Limit__Output>('GetLimit', { scopeType: scopeType(scope), scope: ref });
      ctx.out(cmd, r, () => `${r.scopeType} ${r.scopeId}: ${limitSummary(r)}`);
    },
  );
  withJson(limit.command('list').description('list every level that sets a limit')).action(async (_o, cmd: Command) => {
    const r = await ctx.accounting(cmd).call<accountingV1.ListLimitsResponse__Output>('ListLimits', {});
    ctx.out(cmd, r.limits, () =>
      table(
        ['SCOPE', 'ID', 'RPM', 'TPM', 'BUDGET', 'MODELS', 'UPDATED'],
        r.limits.map((l) => [
          l.scopeType,
          l.scopeId,
          l.hasRpm ? l.rpm : '-',
          l.hasTpm ? l.tpm : '-',
          l.hasBudget ? `${units(l.budgetMicros)}/${l.budgetPeriod}` : '-',
          l.modelsRestricted ? `[${l.allowedModels.join(',')}]` : 'all',
          time(l.updatedAtMs),
        ]),
      ),
    );
  });
  withJson(limit.command('clear <scope> <ref>').description('remove every limit this level sets')).action(
    async (scope: string, ref: string, _o, cmd: Command) => {
      const r = await ctx.accounting(cmd).call<accountingV1.Limit__Output>('SetLimit', { scope: { scopeType: scopeType(scope), scope: ref }, limit: {} });
      ctx.out(cmd, r, () => `${r.scopeType} ${r.scopeId}: ${limitSummary(r)}`);
    },
  );
}

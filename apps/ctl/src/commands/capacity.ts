import type { Command } from 'commander';
import type { accountingV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { fields, table, time } from '../format';
import { withJson } from './shared';

type Profile = accountingV1.CapacityProfile__Output;

/** The stored profiles, one row each. */
export function capacityTable(ps: readonly Profile[], stale: ReadonlySet<string> = new Set()): string {
  return table(
    ['MODEL', 'PROFILE', 'GPU CLASS', 'MAX CONC AT SLO', 'TOK/S', 'TTFT p99', 'TPOT p99', 'COST', 'ENGINE', 'MEASURED', 'STALE'],
    ps.map((p) => [
      p.model,
      p.profile,
      p.gpuClass || '-',
      p.maxConcurrencyAtSlo,
      p.throughputTokPerSec,
      `${p.ttftP99Ms} ms`,
      `${p.tpotP99Ms} ms`,
      p.relativeCost,
      `${p.engine} ${p.engineVersion}`.trim(),
      time(Number(p.measuredAtMs)),
      stale.has(`${p.model}/${p.profile}`) ? 'yes' : '-',
    ]),
  );
}

/** One profile in full. */
export function capacityFields(p: Profile): string {
  return fields({
    model: p.model,
    profile: p.profile,
    'gpu class': p.gpuClass || '-',
    MaxConcurrencyAtSLO: p.maxConcurrencyAtSlo,
    throughput: `${p.throughputTokPerSec} output tokens/s`,
    'TTFT p99': `${p.ttftP99Ms} ms (SLO ${p.sloTtftP99Ms} ms)`,
    'TPOT p99': `${p.tpotP99Ms} ms (SLO ${p.sloTpotP99Ms} ms)`,
    'engine waiting at SLO': p.engineWaitingAtSlo,
    'KV usage at SLO': `${Math.round(p.kvUsageAtSlo * 100)}%`,
    'relative cost': p.relativeCost,
    engine: `${p.engine} ${p.engineVersion}`,
    'engine args': p.engineArgs.join(' ') || '-',
    bench: `prompt ${p.promptTokens} / output ${p.outputTokens} tokens on replica ${p.replica}`,
    measured: time(Number(p.measuredAtMs)),
    'saved by': p.savedBy,
  });
}

/** `ctl capacity list | show | delete`: the capacity profiles `ctl bench --save` stored (accounting, Postgres). */
export function registerCapacity(program: Command, ctx: CtlContext): void {
  const cap = program.command('capacity').description('capacity profiles measured by `ctl bench --save` (docs/capacity.md)');
  withJson(cap.command('list').description('every stored capacity profile').option('--model <model>', 'only this model')).action(
    async (o: { model?: string }, cmd: Command) => {
      const r = await ctx.accounting(cmd).capacity<accountingV1.ListCapacityProfilesResponse__Output>('ListCapacityProfiles', { model: o.model ?? '' });
      const profiles = r.profiles.map(({ resultJson: _r, ...p }) => p);
      ctx.out(cmd, profiles, () => capacityTable(r.profiles));
    },
  );
  withJson(cap.command('show <model> <profile>').description('one capacity profile in full')).action(
    async (model: string, profile: string, _o: unknown, cmd: Command) => {
      const p = await ctx.accounting(cmd).capacity<Profile>('GetCapacityProfile', { model, profile });
      ctx.out(cmd, { ...p, resultJson: undefined, result: p.resultJson ? (JSON.parse(p.resultJson) as unknown) : undefined }, () => capacityFields(p));
    },
  );
  withJson(cap.command('delete <model> <profile>').description('remove one capacity profile (recorded in the audit log)')).action(
    async (model: string, profile: string, _o: unknown, cmd: Command) => {
      const p = await ctx.accounting(cmd).capacity<Profile>('DeleteCapacityProfile', { model, profile });
      ctx.out(
        cmd,
        { ...p, resultJson: undefined },
        () => `deleted the capacity profile of ${p.model} / ${p.profile} (MaxConcurrencyAtSLO ${p.maxConcurrencyAtSlo})`,
      );
    },
  );
}

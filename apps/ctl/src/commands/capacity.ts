import type { Command } from 'commander';
import type { accountingV1, controlV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { fields, table, time, usage } from '../format';
import { capacityToApply, type CapacityToApply } from '../bench/apply';
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
export function capacityFields(p: Profile, applied?: string): string {
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
    applied,
  });
}

/** What apply set, as `ctl capacity apply` and `ctl models` print it. */
export function appliedText(model: string, a: controlV1.AppliedCapacity__Output, catalogWeight: (profile: string) => number | undefined): string {
  return [
    table(
      ['PROFILE', 'GPU CLASS', 'MAX CONC AT SLO', 'WEIGHT', 'TARGET WAITING'],
      a.profiles.map((p) => [
        p.profile,
        p.gpuClass || '-',
        p.maxConcurrencyAtSlo,
        `${p.weight} (catalog ${catalogWeight(p.profile) ?? '-'})`,
        p.targetWaitingPerReplica,
      ]),
    ),
    `autoscaler target: ${a.targetWaitingPerReplica} waiting per replica; applied ${time(Number(a.appliedAtMs))} by ${a.appliedBy || '-'} (${model})`,
  ].join('\n');
}

/**
 * Applies the model's stored capacity profiles (docs/capacity.md "Applying a
 * profile"): routing weights, admission's target waiting and the autoscaler's
 * target in one SetModelTarget (one audit record, `model.capacity.apply`).
 */
export async function applyCapacity(
  ctx: CtlContext,
  cmd: Command,
  model: string,
): Promise<{ apply: CapacityToApply; response: controlV1.SetModelTargetResponse__Output; text: string }> {
  const stored = await ctx.accounting(cmd).capacity<accountingV1.ListCapacityProfilesResponse__Output>('ListCapacityProfiles', { model });
  const models = await ctx.control(cmd).unary<controlV1.ListModelsResponse__Output>('ListModels', {});
  const m = models.models.find((x) => x.name === model || x.aliases.includes(model));
  if (!m) throw usage(`model ${model} is not in the catalog`);
  const apply = capacityToApply(
    stored.profiles,
    m.profiles.map((p) => p.name),
  );
  if (!apply) throw usage(`no capacity profile of ${m.name} with a capacity within its SLO is stored: measure one with llmgw ctl bench ${m.name} --save`);
  const response = await ctx.control(cmd).unary<controlV1.SetModelTargetResponse__Output>('SetModelTarget', {
    model: m.name,
    keepReplicas: true,
    appliedCapacity: { profiles: apply.profiles, targetWaitingPerReplica: apply.targetWaitingPerReplica },
  });
  const weight = (p: string) => m.profiles.find((x) => x.name === p)?.weight;
  const a = response.model?.appliedCapacity;
  const notes = [
    ...apply.unmeasured.map((p) => `profile ${p} has no stored measurement: it keeps the catalog's weight ${weight(p) ?? '-'}`),
    ...apply.notInCatalog.map((p) => `stored profile ${p} is not in the catalog: not applied`),
  ];
  const text = [`applied the capacity of ${m.name}${response.changed ? '' : ' — unchanged'}:`, a ? appliedText(m.name, a, weight) : '', ...notes].join('\n');
  return { apply, response, text };
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
      // What is applied from it now, from the placement-scheduler; the profile alone when that cannot be asked.
      const applied = await ctx
        .control(cmd)
        .unary<controlV1.ListModelsResponse__Output>('ListModels', {}, { deadlineMs: 5000 })
        .then((r) => {
          const a = r.models.find((m) => m.name === p.model)?.appliedCapacity;
          const mine = a?.profiles.find((x) => x.profile === p.profile);
          return mine
            ? `weight ${mine.weight}, target waiting ${mine.targetWaitingPerReplica} (from MaxConcurrencyAtSLO ${mine.maxConcurrencyAtSlo}), autoscaler target ${a!.targetWaitingPerReplica}; ${time(Number(a!.appliedAtMs))} by ${a!.appliedBy || '-'}`
            : 'no (llmgw ctl capacity apply ' + p.model + ')';
        })
        .catch((e: Error) => `unknown (the placement-scheduler: ${e.message})`);
      ctx.out(cmd, { ...p, resultJson: undefined, result: p.resultJson ? (JSON.parse(p.resultJson) as unknown) : undefined, applied }, () =>
        capacityFields(p, applied),
      );
    },
  );
  withJson(
    cap
      .command('apply <model>')
      .description(
        "set the model's routing weights, admission's target waiting and the autoscaler's target from its stored capacity profiles (one audited change)",
      )
      .option('--clear', "drop what was applied: the catalog's weights and targets again"),
  ).action(async (model: string, o: { clear?: boolean }, cmd: Command) => {
    if (o.clear) {
      const r = await ctx.control(cmd).unary<controlV1.SetModelTargetResponse__Output>('SetModelTarget', { model, keepReplicas: true, clearCapacity: true });
      ctx.out(
        cmd,
        r,
        () => `${r.model?.name ?? model}: applied capacity cleared${r.changed ? '' : ' — there was none'}; the catalog's weights and targets are in force`,
      );
      return;
    }
    const r = await applyCapacity(ctx, cmd, model);
    ctx.out(cmd, { ...r.response, apply: r.apply }, () => r.text);
  });
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

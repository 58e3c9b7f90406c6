import type { Command } from 'commander';
import type { accountingV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { table, usage } from '../format';
import { cheapestPlan, planArithmetic, singleProfilePlans, type Plan, type SizingProfile, type Target } from '../bench/sizing';
import { withJson } from './shared';

/** The target from --target-rps / --tokens-per-sec (exactly one). */
export function parseTarget(o: { targetRps?: string; tokensPerSec?: string }): Target {
  if ((o.targetRps === undefined) === (o.tokensPerSec === undefined)) throw usage('give one of --target-rps N or --tokens-per-sec N');
  const raw = o.targetRps ?? o.tokensPerSec!;
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0) throw usage(`the target must be a number above 0, got "${raw}"`);
  return o.targetRps !== undefined ? { kind: 'rps', value: v } : { kind: 'tokens-per-sec', value: v };
}

/** The stored profiles of a model as sizing inputs. */
export async function sizingProfiles(ctx: CtlContext, cmd: Command, model: string): Promise<SizingProfile[]> {
  const r = await ctx.accounting(cmd).capacity<accountingV1.ListCapacityProfilesResponse__Output>('ListCapacityProfiles', { model });
  if (!r.profiles.length) throw usage(`no capacity profile stored for ${model}: measure one with llmgw ctl bench ${model} --save`);
  return r.profiles.map((p) => ({
    profile: p.profile,
    gpuClass: p.gpuClass,
    maxConcurrencyAtSlo: p.maxConcurrencyAtSlo,
    throughputTokPerSec: p.throughputTokPerSec,
    outputTokens: p.outputTokens,
    relativeCost: p.relativeCost || 1,
  }));
}

export interface PlanResult {
  model: string;
  target: Target;
  best: Plan;
  alternatives: Plan[];
}

export function planText(r: PlanResult): string {
  const unit = r.target.kind === 'rps' ? 'requests/s' : 'output tokens/s';
  return [
    `${r.model}: ${r.target.value} ${unit} within the SLO each profile was measured against`,
    '',
    'cheapest:',
    ...planArithmetic(r.best, r.target).map((l) => `  ${l}`),
    `  total ${r.best.replicas} replica${r.best.replicas === 1 ? '' : 's'}, capacity ${Math.round(r.best.capacity * 100) / 100} ${unit}, cost ${Math.round(r.best.cost * 100) / 100}`,
    '',
    'one profile alone:',
    table(
      ['PROFILE', 'GPU CLASS', 'REPLICAS', 'CAPACITY', 'COST'],
      r.alternatives.map((p) => [
        p.lines[0].profile,
        p.lines[0].gpuClass || '-',
        p.replicas,
        Math.round(p.capacity * 100) / 100,
        Math.round(p.cost * 100) / 100,
      ]),
    ),
  ].join('\n');
}

/** Sizes `model` for the target from its stored profiles. */
export async function planFor(ctx: CtlContext, cmd: Command, model: string, target: Target): Promise<PlanResult> {
  const profiles = await sizingProfiles(ctx, cmd, model);
  const best = cheapestPlan(profiles, target);
  if (!best) throw usage(`no stored profile of ${model} measured any capacity within its SLO`);
  return { model, target, best, alternatives: singleProfilePlans(profiles, target) };
}

/** `ctl plan <model> --target-rps N | --tokens-per-sec N`. */
export function registerPlan(program: Command, ctx: CtlContext): void {
  withJson(
    program
      .command('plan <model>')
      .description(
        'the cheapest replicas per GPU class meeting a load within the SLO, from the capacity profiles `ctl bench --save` stored, with the arithmetic',
      )
      .option('--target-rps <n>', "requests per second to serve (at the benchmark's prompt and output lengths)")
      .option('--tokens-per-sec <n>', 'output tokens per second to serve'),
  ).action(async (model: string, o: { targetRps?: string; tokensPerSec?: string }, cmd: Command) => {
    const target = parseTarget(o);
    const r = await planFor(ctx, cmd, model, target);
    ctx.out(cmd, r, () => planText(r));
  });
}

/**
 * The model target a sizing asks for: the plan's replicas as min, and max the
 * given one or min. The class mix is not enforced — placement's profile
 * priority chooses each replica's class (docs/capacity.md "Sizing").
 */
export function sizedTarget(r: PlanResult, max?: number): { minReplicas: number; maxReplicas: number } {
  const min = r.best.replicas;
  if (max !== undefined && max < min) throw usage(`--max (${max}) must be ≥ the ${min} replicas the sizing needs`);
  return { minReplicas: min, maxReplicas: max ?? min };
}

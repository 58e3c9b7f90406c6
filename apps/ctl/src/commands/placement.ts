import type { Command } from 'commander';
import type { controlV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { table, time, usage } from '../format';
import { withJson } from './shared';
import { appliedNotes, autoscaleNotes } from './autoscale-note';
import { parseTarget, planFor, planText, sizedTarget } from './plan';

const short = (s: string, prefix: string) => (s.startsWith(prefix) ? s.slice(prefix.length) : s);
const ms = (v: number) => (v <= 0 ? 'never' : v % 60_000 === 0 ? `${v / 60_000}m` : v % 1000 === 0 ? `${v / 1000}s` : `${v}ms`);

/** Text of one ExplainPlacement answer (docs/placement.md "Reading explain-placement"). */
export function explainText(e: controlV1.ExplainPlacementResponse__Output): string {
  const lines: string[] = [];
  const head = `model ${e.model}: ${e.schedulable ? 'schedulable' : 'NOT schedulable'} (${e.replicasCurrent} running, ${e.replicasDesired} wanted)`;
  lines.push(head);
  if (e.decision) {
    const d = e.decision;
    lines.push(`would place: profile ${d.profile}${d.fabric ? ` in fabric ${d.fabric}` : ''}`);
    for (const s of d.shards) lines.push(`  rank ${s.rank}  ${s.nodeId}  GPUs ${s.gpuIndices.join(',')}${s.hcas.length ? `  HCAs ${s.hcas.join(',')}` : ''}`);
  }
  if (e.room) {
    const d = e.room.decision;
    lines.push(
      `would make room (${e.room.kind}): drain ${e.room.victims.length} replica(s), then place profile ${d?.profile}${d?.fabric ? ` in fabric ${d.fabric}` : ''}`,
    );
    for (const v of e.room.victims) lines.push(`  ${v.why.padEnd(9)}  ${v.replicaId}  ${v.model} (${v.capacityClass}) — ${v.detail}`);
    for (const s of d?.shards ?? []) lines.push(`  rank ${s.rank}  ${s.nodeId}  GPUs ${s.gpuIndices.join(',')}`);
  }
  for (const p of e.profiles) {
    const reason = short(p.reason, 'REJECT_REASON_');
    lines.push(
      `profile ${p.profile} (priority ${p.priority}, ${p.gpuClass}, ${p.nodes} node${p.nodes === 1 ? '' : 's'} × ${p.gpusPerNode} GPUs): ${reason === 'NONE' ? 'ok' : reason}${p.detail ? ` — ${p.detail}` : ''}`,
    );
    for (const pool of p.pools) {
      const pr = short(pool.reason, 'REJECT_REASON_');
      lines.push(`  pool ${pool.pool}: ${pr === 'NONE' ? 'ok' : pr} — ${pool.detail}`);
      const w = Math.max(0, ...pool.nodes.map((n) => n.nodeId.length));
      for (const n of pool.nodes) {
        const r = short(n.reason, 'REJECT_REASON_');
        lines.push(`    ${n.nodeId.padEnd(w)}  ${r === 'NONE' ? `ok score ${n.score.toFixed(3)}` : r.padEnd(17)}  ${n.detail}`);
      }
    }
  }
  return lines.join('\n');
}

/** `ctl models`, `ctl replicas`, `ctl explain-placement`, `ctl model target`: the placement-scheduler's model half. */
export function registerPlacement(program: Command, ctx: CtlContext): void {
  withJson(program.command('models').description('the catalog: every model, its scaling mode and replica counts (ready / total / wanted)')).action(
    async (_o: unknown, cmd: Command) => {
      const r = await ctx.control(cmd).unary<controlV1.ListModelsResponse__Output>('ListModels', {});
      // Usage against the model's project quota (the project-scope one of every class, when there is one).
      const quotas = r.models.some((m) => m.project) ? (await ctx.control(cmd).unary<controlV1.ListQuotasResponse__Output>('ListQuotas', {})).quotas : [];
      const quotaOf = (m: controlV1.Model__Output) => {
        const q = quotas.find((x) => x.scope === 'project' && x.name === m.project && !x.capacityClass);
        return q ? `${q.usedGpus}/${q.hasLimit ? q.limitGpus : '∞'} (g ${q.guaranteeGpus})` : '-';
      };
      ctx.out(
        cmd,
        r.models,
        () =>
          table(
            ['MODEL', 'MODE', 'CLASS', 'READY', 'TOTAL', 'WANTED', 'MIN', 'MAX', 'IDLE', 'GPUS', 'PROJECT', 'QUOTA', 'PROFILES', 'ALIASES'],
            r.models.map((m) => [
              m.name,
              m.scalingMode + (m.scalingOverridden ? '*' : ''),
              m.capacityClass || 'standard',
              m.replicasReady,
              m.replicasTotal,
              m.replicasDesired,
              m.scaling?.minReplicas ?? 0,
              m.scaling?.maxReplicas ?? 0,
              m.scalingMode === 'on-demand' ? ms(m.scaling?.idleTimeoutMs ?? 0) : '-',
              m.gpusUsed,
              m.project || '-',
              quotaOf(m),
              m.profiles.map((p) => p.name).join(','),
              m.aliases.join(',') || '-',
            ]),
          ) +
          (r.models.some((m) => m.scalingOverridden) ? '\n* min/max set by `ctl model target`' : '') +
          autoscaleNotes(r.models) +
          appliedNotes(r.models),
      );
    },
  );

  withJson(
    program
      .command('replicas')
      .description('replicas and their shards: state, endpoint, where each rank runs')
      .option('--model <model>', 'only this model (name or alias)')
      .option('--node <node>', 'only replicas with a shard on this node'),
  ).action(async (o: { model?: string; node?: string }, cmd: Command) => {
    const r = await ctx.control(cmd).unary<controlV1.ListReplicasResponse__Output>('ListReplicas', { model: o.model ?? '', nodeId: o.node ?? '' });
    const shown = new Set(r.replicas.map((x) => x.model));
    // The autoscaler's notes for the models shown (text only; --json callers read ListModels themselves).
    const models =
      ctx.opts(cmd).json || !shown.size
        ? []
        : (
            (
              await ctx
                .control(cmd)
                .unary<controlV1.ListModelsResponse__Output>('ListModels', {})
                .catch(() => undefined)
            )?.models ?? []
          ).filter((m) => shown.has(m.name));
    ctx.out(
      cmd,
      r.replicas,
      () =>
        table(
          ['REPLICA', 'MODEL', 'PROFILE', 'STATE', 'POOL', 'SHARDS', 'ENDPOINT', 'SINCE', 'NOTE'],
          r.replicas.map((x) => [
            x.replicaId,
            x.model,
            x.profile,
            short(x.state, 'REPLICA_STATE_').toLowerCase() + (x.adopted ? ' (adopted)' : ''),
            x.fabric ? `${x.gpuClass}/${x.fabric}` : x.gpuClass,
            x.shards.map((s) => `r${s.rank}@${s.nodeId}[${s.gpuIndices.join(',')}]:${short(s.state, 'SHARD_STATE_').toLowerCase()}`).join(' '),
            x.endpoint || '-',
            time(x.readyAtMs || x.createdAtMs),
            // A shard fetching weights says how far it is (bytes, rate, ETA); otherwise the replica's note.
            x.shards
              .filter((s) => s.state === 'SHARD_STATE_DOWNLOADING')
              .map((s) => `r${s.rank}: ${s.message}`)
              .join('; ') ||
              x.message ||
              '',
          ]),
        ) + autoscaleNotes(models),
    );
  });

  withJson(
    program
      .command('explain-placement <model>')
      .description('why a model is (or is not) placed: every profile, pool and node considered, with the reason each was rejected')
      .option('--profile <name>', 'only this profile'),
  ).action(async (model: string, o: { profile?: string }, cmd: Command) => {
    const r = await ctx.control(cmd).unary<controlV1.ExplainPlacementResponse__Output>('ExplainPlacement', { model, profile: o.profile ?? '' });
    ctx.out(cmd, r, () => explainText(r));
  });

  const target = program.command('model').description('operator overrides of one model');
  withJson(
    target
      .command('target <model>')
      .description(
        "override the catalog's min/max replicas of a model until cleared (kept across scheduler restarts); --tokens-per-sec / --target-rps sets min from the same sizing as `ctl plan`",
      )
      .option('--min <n>', 'replicas kept running')
      .option('--max <n>', 'replicas never exceeded (default: --min, or the sized count)')
      .option('--tokens-per-sec <n>', 'size min from the stored capacity profiles for this many output tokens/s (as `ctl plan`)')
      .option('--target-rps <n>', 'size min from the stored capacity profiles for this many requests/s (as `ctl plan`)')
      .option('--clear', "drop the override and return to the catalog's scaling"),
  ).action(async (model: string, o: { min?: string; max?: string; clear?: boolean; tokensPerSec?: string; targetRps?: string }, cmd: Command) => {
    const int = (v: string, what: string) => {
      if (!/^\d+$/.test(v)) throw usage(`${what} must be a non-negative integer, got "${v}"`);
      return Number(v);
    };
    const sizing = o.tokensPerSec !== undefined || o.targetRps !== undefined;
    if (!o.clear && !sizing && o.min === undefined && o.max === undefined)
      throw usage('give --min N [--max M], --tokens-per-sec N / --target-rps N [--max M], or --clear');
    if (o.clear && (o.min !== undefined || o.max !== undefined || sizing)) throw usage('--clear takes no --min/--max/--tokens-per-sec/--target-rps');
    if (sizing && o.min !== undefined) throw usage('--min comes from the sizing with --tokens-per-sec / --target-rps; give one or the other');
    const plan = sizing ? await planFor(ctx, cmd, model, parseTarget(o)) : undefined;
    let min: number;
    let max: number;
    if (plan) ({ minReplicas: min, maxReplicas: max } = sizedTarget(plan, o.max !== undefined ? int(o.max, '--max') : undefined));
    else {
      min = o.min !== undefined ? int(o.min, '--min') : 0;
      max = o.max !== undefined ? int(o.max, '--max') : min;
    }
    if (max < min) throw usage(`--max (${max}) must be ≥ --min (${min})`);
    const r = await ctx
      .control(cmd)
      .unary<controlV1.SetModelTargetResponse__Output>('SetModelTarget', { model, minReplicas: min, maxReplicas: max, clear: !!o.clear });
    const m = r.model!;
    const line = `${m.name}: min ${m.scaling?.minReplicas ?? 0}, max ${m.scaling?.maxReplicas ?? 0} (${m.scalingMode}${m.scalingOverridden ? ', operator target' : ', catalog'})${r.changed ? '' : ' — unchanged'}`;
    ctx.out(cmd, plan ? { ...r, plan } : r, () => (plan ? `${planText(plan)}\n\n${line}` : line));
  });
}

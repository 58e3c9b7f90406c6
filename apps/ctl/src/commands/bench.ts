import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { accountingV1, controlV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { parseCount, table, usage } from '../format';
import { benchChartSvg } from '../bench/chart';
import { runRamp, type RampResult } from '../bench/drive';
import { formatSlo, parseSlo, type EngineReading, type StepResult } from '../bench/stats';
import { withJson } from './shared';
import { applyCapacity } from './capacity';

/** What `ctl bench` measured: one capacity profile candidate (docs/capacity.md). */
export interface BenchResult {
  model: string;
  profile: string;
  replica: string;
  gpuClass: string;
  engine: string;
  engineVersion: string;
  engineArgs: string[];
  slo: { ttftP99Ms: number; tpotP99Ms: number };
  promptTokens: number;
  /** The prompt length the engine counted (usage.prompt_tokens), mean of the first step. */
  promptTokensCounted?: number;
  outputTokens: number;
  /** Of the first ramp (0 % shared prefix unless --prefix-share says otherwise). */
  maxConcurrencyAtSlo: number;
  throughputTokPerSec: number;
  ttftP99Ms: number;
  tpotP99Ms: number;
  /** Engine queue depth and KV usage seen at MaxConcurrencyAtSLO. */
  engineWaitingAtSlo?: number;
  kvUsageAtSlo?: number;
  ramps: RampResult[];
  measuredAtMs: number;
  resultFile?: string;
  chartFile?: string;
}

interface BenchFlags {
  profile?: string;
  replica?: string;
  router?: string;
  key?: string;
  promptTokens: string;
  outputTokens: string;
  slo: string;
  start: string;
  maxConcurrency: string;
  resolution: string;
  minRequests: string;
  requestsPerSlot: string;
  requestTimeout: string;
  sweepPrefix?: boolean;
  prefixShare: string;
  out?: string;
  save?: boolean;
  apply?: boolean;
  relativeCost: string;
  confirmBreaks: boolean;
}

/** The stored form of a result (CapacityAdmin.SaveCapacityProfile). */
export function toCapacityProfile(r: BenchResult, relativeCost: number): accountingV1.CapacityProfile {
  return {
    model: r.model,
    profile: r.profile,
    gpuClass: r.gpuClass,
    maxConcurrencyAtSlo: r.maxConcurrencyAtSlo,
    throughputTokPerSec: r.throughputTokPerSec,
    ttftP99Ms: r.ttftP99Ms,
    tpotP99Ms: r.tpotP99Ms,
    sloTtftP99Ms: r.slo.ttftP99Ms,
    sloTpotP99Ms: r.slo.tpotP99Ms,
    relativeCost,
    engine: r.engine,
    engineVersion: r.engineVersion,
    engineArgs: r.engineArgs,
    promptTokens: r.promptTokens,
    outputTokens: r.outputTokens,
    engineWaitingAtSlo: r.engineWaitingAtSlo ?? 0,
    kvUsageAtSlo: r.kvUsageAtSlo ?? 0,
    measuredAtMs: r.measuredAtMs,
    replica: r.replica,
    resultJson: JSON.stringify(r),
  };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The table printed at the end: one row per step of each ramp. */
export function benchTable(r: BenchResult): string {
  const rows = r.ramps.flatMap((ramp) =>
    ramp.steps.map((s) => [
      ...(r.ramps.length > 1 ? [pct(ramp.prefixShare)] : []),
      s.concurrency,
      s.requests,
      s.failed,
      `${s.ttftMs.p50}/${s.ttftMs.p95}/${s.ttftMs.p99}`,
      `${s.tpotMs.p50}/${s.tpotMs.p99}`,
      s.tokensPerSec,
      s.engineWaitingMax ?? '-',
      s.kvUsageMax !== undefined ? pct(s.kvUsageMax) : '-',
      (s.meetsSlo ? (s.concurrency === ramp.maxConcurrencyAtSlo ? 'ok  <- max' : 'ok') : `BREAKS: ${s.breaks}`) +
        (s.firstRunBroke === undefined ? '' : s.meetsSlo ? ` (ran twice: the first run broke, ${s.firstRunBroke})` : ' (twice)'),
    ]),
  );
  const head = [
    ...(r.ramps.length > 1 ? ['PREFIX'] : []),
    'CONC',
    'REQS',
    'FAILED',
    'TTFT p50/p95/p99 ms',
    'TPOT p50/p99 ms',
    'TOK/S',
    'ENGINE WAITING',
    'KV',
    'SLO',
  ];
  const summary = r.ramps.map(
    (ramp) => `MaxConcurrencyAtSLO${r.ramps.length > 1 ? ` at ${pct(ramp.prefixShare)} shared prefix` : ''}: ${ramp.maxConcurrencyAtSlo}`,
  );
  return [
    `bench ${r.model} profile ${r.profile} on replica ${r.replica} (${r.gpuClass || 'no GPU class'}, ${r.engine} ${r.engineVersion || '?'}), prompt ${r.promptTokens}${r.promptTokensCounted !== undefined ? ` (engine counted ${r.promptTokensCounted})` : ''} / output ${r.outputTokens} tokens`,
    `SLO: ${formatSlo(r.slo)}`,
    '',
    table(head, rows),
    '',
    ...summary,
    `at that concurrency: ${r.throughputTokPerSec} tokens/s, TTFT p99 ${r.ttftP99Ms} ms, TPOT p99 ${r.tpotP99Ms} ms`,
    ...(r.resultFile ? [`result: ${r.resultFile}`] : []),
    ...(r.chartFile ? [`chart:  ${r.chartFile}`] : []),
  ].join('\n');
}

/** The replica to drive: --replica, else the first READY one of the model (and --profile). */
async function pickReplica(
  ctx: CtlContext,
  cmd: Command,
  model: string,
  o: BenchFlags,
): Promise<{ replica: controlV1.Replica__Output; node?: controlV1.Node__Output }> {
  const control = ctx.control(cmd);
  const reps = (await control.unary<controlV1.ListReplicasResponse__Output>('ListReplicas', { model, nodeId: '' })).replicas;
  const ready = reps.filter((r) => r.state === 'REPLICA_STATE_READY' && (!o.profile || r.profile === o.profile) && (!o.replica || r.replicaId === o.replica));
  if (!ready.length) {
    const what = o.replica ? `replica ${o.replica}` : o.profile ? `profile ${o.profile}` : 'any profile';
    throw usage(`no READY replica of ${model} (${what}); see llmgw ctl replicas --model ${model}`);
  }
  const replica = ready[0];
  const nodes = (await control.listNodes()).nodes;
  const node = nodes.find((n) => n.info?.nodeId === replica.shards[0]?.nodeId);
  return { replica, node };
}

/** The engine's queue depth and KV usage for the replica, from the control API (what agents report). */
function engineSampler(ctx: CtlContext, cmd: Command, replicaId: string, nodeId: string): () => Promise<EngineReading | undefined> {
  return async () => {
    const n = await ctx.control(cmd).getNode(nodeId, { deadlineMs: 1000 });
    const s = n.engineStats.find((x) => x.replicaId === replicaId);
    return s ? { waiting: s.waiting, running: s.running, ...(s.kvUsage !== undefined && s.kvUsage !== null ? { kvUsage: s.kvUsage } : {}) } : undefined;
  };
}

/** `ctl bench <model>`: drives one replica at rising concurrency; writes the result and its chart. */
export function registerBench(program: Command, ctx: CtlContext): void {
  withJson(
    program
      .command('bench <model>')
      .description(
        "measure one replica's capacity through a router (the replica pinned): TTFT/TPOT/throughput at rising concurrency until the SLO breaks; reports MaxConcurrencyAtSLO, writes <out>.json and a chart <out>.svg",
      )
      .option('--profile <profile>', 'bench a replica of this launch profile')
      .option('--replica <id>', 'bench this replica (default: the first READY one)')
      .option('--router <url>', 'router base URL (default $LLMGW_ROUTER_URL, else http://127.0.0.1:8080)')
      .option('--key <key>', 'API key (default $LLMGW_KEY); the key must be allowed to pin replicas (tenancy.allow_replica_pin)')
      .option('--prompt-tokens <n>', 'prompt length, tokens (approximate: one short word each)', '256')
      .option('--output-tokens <n>', 'output length, tokens (max_tokens)', '64')
      .option('--slo <slo>', 'the SLO each step must meet', 'ttft_p99=2s,tpot_p99=50ms')
      .option('--start <n>', 'first concurrency', '1')
      .option('--max-concurrency <n>', 'highest concurrency tried', '256')
      .option('--resolution <fraction>', 'refine until the last good and first bad levels are this close (fraction of the good one)', '0.1')
      .option('--min-requests <n>', 'requests per step at least', '16')
      .option('--requests-per-slot <n>', 'requests per step = max(min, concurrency × this)', '4')
      .option('--request-timeout <ms>', 'per-request timeout', '60000')
      .option('--prefix-share <fraction>', 'share of each prompt common to all requests (prefix-cache hits)', '0')
      .option('--sweep-prefix', 'repeat the ramp at 0, 50 and 90 % shared prefix')
      .option(
        '--no-confirm-breaks',
        'take a level that breaks the SLO once as broken (by default it runs once more and counts as broken only if it breaks again: a stall can break a level that has the capacity, never pass one that has not)',
      )
      .option('--save', 'store the result as the capacity profile of (model, profile) (accounting, Postgres; see `ctl capacity`)')
      .option('--apply', "with --save: apply the model's stored profiles at once (as `ctl capacity apply`: weights, admission's and the autoscaler's targets)")
      .option('--relative-cost <x>', 'relative GPU-hour cost of one replica of this profile, stored with --save (what `ctl plan` minimises)', '1')
      .option('--out <file>', 'result file (JSON); the chart goes beside it as .svg (default ./bench-<model>-<profile>-<time>.json)'),
  ).action(async (model: string, o: BenchFlags, cmd: Command) => {
    const num = (s: string, what: string, min: number, max = Infinity) => {
      const v = Number(s);
      if (!Number.isFinite(v) || v < min || v > max) throw usage(`${what} must be a number in [${min}, ${max}], got "${s}"`);
      return v;
    };
    if (o.apply && !o.save) throw usage('--apply applies what --save stores: give both');
    const slo = parseSlo(o.slo);
    const relativeCost = num(o.relativeCost, '--relative-cost', 0);
    const shares = o.sweepPrefix ? [0, 0.5, 0.9] : [num(o.prefixShare, '--prefix-share', 0, 0.99)];
    const ramp = {
      promptTokens: Math.max(1, parseCount(o.promptTokens, '--prompt-tokens')),
      outputTokens: Math.max(2, parseCount(o.outputTokens, '--output-tokens')),
      startConcurrency: Math.max(1, parseCount(o.start, '--start')),
      maxConcurrency: Math.max(1, parseCount(o.maxConcurrency, '--max-concurrency')),
      resolution: num(o.resolution, '--resolution', 0, 1),
      minRequests: Math.max(1, parseCount(o.minRequests, '--min-requests')),
      requestsPerSlot: num(o.requestsPerSlot, '--requests-per-slot', 1),
      requestTimeoutMs: num(o.requestTimeout, '--request-timeout', 1),
      confirmBreaks: o.confirmBreaks,
      slo,
    };
    const routerUrl = o.router ?? process.env.LLMGW_ROUTER_URL ?? 'http://127.0.0.1:8080';
    try {
      new URL(routerUrl);
    } catch {
      throw usage(`--router: "${routerUrl}" is not a URL`);
    }
    const { replica, node } = await pickReplica(ctx, cmd, model, o);
    const spec = node?.shards.find((s) => s.replicaId === replica.replicaId && (s.spec?.rank ?? 0) === 0)?.spec;
    const engineVersion = node?.info?.versions?.engines.find((e) => e.engine === replica.engine)?.version ?? '';
    const target = { routerUrl, key: o.key ?? process.env.LLMGW_KEY, model: replica.model, replica: replica.replicaId };
    const sample = node?.info?.nodeId ? engineSampler(ctx, cmd, replica.replicaId, node.info.nodeId) : undefined;
    const progress = (s: string) => ctx.io.stderr.write(s);
    const ramps: RampResult[] = [];
    for (const prefixShare of shares) {
      ramps.push(
        await runRamp(
          target,
          { ...ramp, prefixShare },
          {
            sample,
            onStart: (c, n, p, again) =>
              progress(
                `${shares.length > 1 ? `[prefix ${pct(p)}] ` : ''}concurrency ${c}${again ? ' again (a break counts when it repeats)' : ''}: ${n} requests… `,
              ),
            onStep: (s: StepResult) =>
              progress(
                `TTFT p99 ${s.ttftMs.p99} ms, TPOT p99 ${s.tpotMs.p99} ms, ${s.tokensPerSec} tok/s${s.engineWaitingMax !== undefined ? `, engine waiting ≤ ${s.engineWaitingMax}` : ''} — ${s.meetsSlo ? 'meets the SLO' : `breaks it (${s.breaks})`}\n`,
              ),
          },
        ),
      );
    }
    const first = ramps[0];
    const at = first.atSlo;
    const result: BenchResult = {
      model: replica.model,
      profile: replica.profile,
      replica: replica.replicaId,
      gpuClass: replica.gpuClass,
      engine: replica.engine,
      engineVersion,
      engineArgs: spec?.args ?? [],
      slo,
      promptTokens: ramp.promptTokens,
      ...(first.steps[0]?.promptTokensMean !== undefined ? { promptTokensCounted: first.steps[0].promptTokensMean } : {}),
      outputTokens: ramp.outputTokens,
      maxConcurrencyAtSlo: first.maxConcurrencyAtSlo,
      throughputTokPerSec: at?.tokensPerSec ?? 0,
      ttftP99Ms: at?.ttftMs.p99 ?? 0,
      tpotP99Ms: at?.tpotMs.p99 ?? 0,
      ...(at?.engineWaitingMax !== undefined ? { engineWaitingAtSlo: at.engineWaitingMax } : {}),
      ...(at?.kvUsageMax !== undefined ? { kvUsageAtSlo: at.kvUsageMax } : {}),
      ramps,
      measuredAtMs: Date.now(),
    };
    const stamp = new Date(result.measuredAtMs).toISOString().replace(/[:.]/g, '-');
    const out = resolve(o.out ?? `bench-${replica.model}-${replica.profile}-${stamp}.json`.replace(/[^A-Za-z0-9._-]/g, '_'));
    result.resultFile = out;
    result.chartFile = join(dirname(out), basename(out).replace(/\.json$/, '') + '.svg');
    writeFileSync(
      result.chartFile,
      benchChartSvg({
        title: `${replica.model} / ${replica.profile} (${replica.gpuClass || 'cpu'}) — ${ramp.promptTokens} in, ${ramp.outputTokens} out`,
        steps: first.steps,
        slo,
        maxConcurrencyAtSlo: first.maxConcurrencyAtSlo,
      }),
    );
    writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    let saved = '';
    if (o.save) {
      if (result.maxConcurrencyAtSlo === 0) throw usage('not saved: no concurrency met the SLO (see the table); nothing to store');
      await ctx.accounting(cmd).capacity('SaveCapacityProfile', toCapacityProfile(result, relativeCost));
      saved = `\nsaved as the capacity profile of ${result.model} / ${result.profile} (llmgw ctl capacity show ${result.model} ${result.profile})`;
      if (o.apply) saved += `\n${(await applyCapacity(ctx, cmd, result.model)).text}`;
    }
    ctx.out(cmd, result, () => benchTable(result) + saved);
  });
}

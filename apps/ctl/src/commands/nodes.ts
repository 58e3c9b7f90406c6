import type { Command } from 'commander';
import { parseDurationMs } from '@llmgw/config';
import { type controlV1, isTerminalShardState } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { fields, table, time, usage } from '../format';
import { withJson } from './shared';

type Node = controlV1.Node__Output;

const STATE = (s: string) => s.replace('NODE_STATE_', '').toLowerCase();

/** "6/8 h100-80g" — free (healthy, unallocated) over total, and the class. */
export function gpuSummary(n: Node): string {
  const gpus = n.info?.gpus ?? [];
  if (!gpus.length) return '-';
  const held = new Set(n.allocations.map((a) => a.gpuIndex));
  const failed = new Set(n.gpuHealth.filter((h) => h.health === 'GPU_HEALTH_FAILED').map((h) => h.index));
  const free = gpus.filter((g) => !held.has(g.index) && !failed.has(g.index)).length;
  const classes = [...new Set(gpus.map((g) => g.gpuClass || g.name))].join(',');
  return `${free}/${gpus.length} ${classes}`;
}

function ago(ms: number, now = Date.now()): string {
  if (!ms) return '-';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  return s < 120 ? `${s}s ago` : s < 7200 ? `${Math.round(s / 60)}m ago` : `${Math.round(s / 3600)}h ago`;
}

/** The sensor columns of `nodes --wide` (GPU figures from the heartbeat's GPU reports, CPU ones from its host sensors). */
export const SENSOR_COLUMNS = ['GPU °C', 'GPU W', 'THROTTLED', 'CPU °C', 'CPU W', 'LOCATION'];

/** "-" for an unknown (0) reading. */
const reading = (v: number | undefined, digits = 0) => (v && v > 0 ? v.toFixed(digits) : '-');

/** One node's sensor cells: hottest GPU, summed GPU power, GPUs held back by something other than idling, CPU, rack/PDU. */
export function sensorCells(n: Node): string[] {
  const temps = n.gpuHealth.map((h) => h.temperatureCelsius).filter((t) => t > 0);
  const power = n.gpuHealth.reduce((s, h) => s + (h.powerDrawWatts > 0 ? h.powerDrawWatts : 0), 0);
  const known = n.gpuHealth.filter((h) => h.clocksEventReasons);
  const held = known.filter((h) => throttledMask(h.clocksEventReasons)).length;
  const labels = n.info?.labels ?? {};
  const where = [labels.rack && `rack ${labels.rack}`, labels.pdu && `pdu ${labels.pdu}`].filter(Boolean).join(', ');
  return [
    temps.length ? String(Math.max(...temps)) : '-',
    reading(power),
    known.length ? `${held}/${known.length}` : '-',
    reading(n.hostSensors?.cpuTemperatureCelsius),
    reading(n.hostSensors?.cpuPowerWatts),
    where || '-',
  ];
}

/** A clocks event reasons mask ("0x…") with a bit besides idle and the applications clocks setting. */
function throttledMask(mask: string): boolean {
  try {
    return (BigInt(mask) & ~BigInt(3)) !== BigInt(0);
  } catch {
    return false;
  }
}

function nodeRows(nodes: Node[]): Array<Array<string | number>> {
  return nodes.map((n) => [
    n.info?.nodeId ?? '?',
    STATE(n.state),
    gpuSummary(n),
    (n.info?.fabrics ?? []).map((f) => f.fabric).join(',') || '-',
    n.shards.filter((s) => !isTerminalShardState(s.state)).length,
    ago(n.lastSeenMs),
    n.stateReason,
  ]);
}

/** What `nodes show` prints. */
export function nodeDetail(n: Node): string {
  const head = fields({
    node: n.info?.nodeId,
    hostname: n.info?.hostname,
    address: n.info?.mgmtAddr || undefined,
    state: STATE(n.state),
    reason: n.stateReason || undefined,
    since: time(n.stateSinceMs),
    'last seen': `${time(n.lastSeenMs)} (${ago(n.lastSeenMs)})`,
    heartbeat: n.heartbeatIntervalMs ? `${n.heartbeatIntervalMs} ms` : undefined,
    gpus: gpuSummary(n),
    fabrics: (n.info?.fabrics ?? []).map((f) => `${f.fabric} (${f.hcas.join(',')}, ${f.rateGbps} Gb/s)`).join('; ') || 'none',
    agent: n.info?.versions?.agent || undefined,
    simulated: n.info?.simulated ? 'yes' : undefined,
  });
  const health = new Map(n.gpuHealth.map((h) => [h.index, h]));
  const alloc = new Map(n.allocations.map((a) => [a.gpuIndex, a]));
  const gpus = table(
    ['GPU', 'CLASS', 'HEALTH', 'UTIL', 'MEM USED', 'SHARD'],
    (n.info?.gpus ?? []).map((g) => {
      const h = health.get(g.index);
      const a = alloc.get(g.index);
      return [
        g.index,
        g.gpuClass || g.name,
        h ? h.health.replace('GPU_HEALTH_', '').toLowerCase() + (h.reasons.length ? ` (${h.reasons.join('; ')})` : '') : '-',
        h ? `${h.utilizationPercent}%` : '-',
        h ? `${h.memoryUsedMib} MiB` : '-',
        a ? `${a.shardId} (${a.model})` : 'free',
      ];
    }),
  );
  const shards = table(
    ['SHARD', 'REPLICA', 'MODEL', 'STATE', 'SINCE', 'ENDPOINT', 'MESSAGE'],
    n.shards.map((s) => [
      s.shardId,
      s.replicaId,
      s.spec?.model ?? '-',
      s.state.replace('SHARD_STATE_', '').toLowerCase(),
      time(s.stateSinceMs),
      s.endpoint || '-',
      s.message,
    ]),
  );
  return `${head}\n\n${gpus}\n\n${shards}`;
}

function adminLine(verb: string, r: controlV1.NodeAdminResponse__Output): string {
  const n = r.node!;
  const base = r.changed ? `${verb} ${n.info?.nodeId}: now ${STATE(n.state)}` : `${n.info?.nodeId} was already ${STATE(n.state)} (nothing changed)`;
  return r.replicaIds.length ? `${base}\nreplicas to move: ${r.replicaIds.join(', ')}` : base;
}

/** `ctl nodes [list|show <node>]`, `ctl cordon`, `ctl uncordon`, `ctl drain`. */
export function registerNodes(program: Command, ctx: CtlContext): void {
  const nodes = program
    .command('nodes')
    .description('the fleet: nodes, their state (ready, cordoned, draining, unreachable, lost), GPUs and shards')
    .addHelpText('after', '\nExamples:\n  llmgw ctl nodes\n  llmgw ctl nodes show gpu-a-01\n  llmgw ctl nodes list --json');
  const list = async (o: { wide?: boolean }, cmd: Command) => {
    const r = await ctx.control(cmd).listNodes();
    ctx.out(cmd, r.nodes, () =>
      o.wide
        ? table(
            ['NODE', 'STATE', 'GPUS FREE', 'FABRIC', 'SHARDS', 'SEEN', ...SENSOR_COLUMNS, 'REASON'],
            nodeRows(r.nodes).map((row, i) => [...row.slice(0, -1), ...sensorCells(r.nodes[i]), row[row.length - 1]]),
          )
        : table(['NODE', 'STATE', 'GPUS FREE', 'FABRIC', 'SHARDS', 'SEEN', 'REASON'], nodeRows(r.nodes)),
    );
  };
  withJson(
    nodes
      .command('list', { isDefault: true })
      .description('every node, one line each')
      .option('--wide', 'also sensors (hottest GPU, GPU power, throttled GPUs, CPU temperature and power) and the rack/PDU'),
  ).action(list);
  withJson(nodes.command('show <node>').description('one node in full: state with reason and time, every GPU, every shard')).action(
    async (id: string, _o: unknown, cmd: Command) => {
      const n = await ctx.control(cmd).getNode(id);
      ctx.out(cmd, n, () => nodeDetail(n));
    },
  );

  withJson(
    program
      .command('cordon <node>')
      .description('stop placing new replicas on a node; what runs there stays (kept across inventory restarts)')
      .option('--reason <text>', "why (shown as the node's state reason)", ''),
  ).action(async (id: string, o: { reason: string }, cmd: Command) => {
    const r = await ctx.control(cmd).cordon(id, o.reason);
    ctx.out(cmd, r, () => adminLine('cordoned', r));
  });
  withJson(program.command('uncordon <node>').description('undo cordon or drain: the node takes new replicas again')).action(
    async (id: string, _o: unknown, cmd: Command) => {
      const r = await ctx.control(cmd).uncordon(id);
      ctx.out(cmd, r, () => adminLine('uncordoned', r));
    },
  );
  withJson(
    program
      .command('drain <node>')
      .description('cordon a node and have the placement-scheduler move its replicas elsewhere, one at a time')
      .option('--reason <text>', "why (shown as the node's state reason)", '')
      .option(
        '--replica-timeout <duration>',
        "how long each replica may take to drain before it is stopped anyway: 30s, 2m, or ms (0 = the scheduler's drain_timeout)",
        '0',
      ),
  ).action(async (id: string, o: { reason: string; replicaTimeout: string }, cmd: Command) => {
    let timeoutMs: number;
    try {
      timeoutMs = parseDurationMs(o.replicaTimeout);
    } catch (e) {
      throw usage(`--replica-timeout: ${(e as Error).message}`);
    }
    if (timeoutMs > 86_400_000) throw usage('--replica-timeout is at most 24h');
    const r = await ctx.control(cmd).drain(id, o.reason, timeoutMs);
    ctx.out(cmd, r, () => adminLine('draining', r));
  });
}

import type { Command } from 'commander';
import type { controlV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { table } from '../format';
import { gpuSummary, SENSOR_COLUMNS, sensorCells } from './nodes';
import { withJson } from './shared';

type Node = controlV1.Node__Output;

/** One screen of `ctl top`: nodes with GPU use, then every replica's engine load. */
export function topScreen(nodes: Node[], now = Date.now()): string {
  const nodeRows = nodes.map((n) => {
    const h = n.gpuHealth;
    const util = h.length ? Math.round(h.reduce((s, x) => s + x.utilizationPercent, 0) / h.length) : 0;
    const mem = h.reduce((s, x) => s + Number(x.memoryUsedMib), 0);
    const total = (n.info?.gpus ?? []).reduce((s, g) => s + Number(g.memoryTotalMib), 0);
    const bad = h.filter((x) => x.health !== 'GPU_HEALTH_OK' && x.health !== 'GPU_HEALTH_UNSPECIFIED').length;
    // The sensor columns of `nodes --wide`, without the location.
    const sensors = sensorCells(n).slice(0, -1);
    return [
      n.info?.nodeId ?? '?',
      n.state.replace('NODE_STATE_', '').toLowerCase(),
      gpuSummary(n),
      h.length ? `${util}%` : '-',
      total ? `${Math.round((mem / total) * 100)}%` : '-',
      ...sensors,
      bad ? `${bad} unhealthy` : 'ok',
    ];
  });
  const rep = new Map<string, { model: string; node: string; state: string; waiting: string; running: string; kv: string; age: string }>();
  for (const n of nodes) {
    const stats = new Map(n.engineStats.map((s) => [s.shardId, s]));
    for (const s of n.shards) {
      if ((s.spec?.rank ?? 0) !== 0) continue;
      const st = stats.get(s.shardId);
      rep.set(s.replicaId || s.shardId, {
        model: s.spec?.model ?? '-',
        node: n.info?.nodeId ?? '?',
        state: s.state.replace('SHARD_STATE_', '').toLowerCase(),
        waiting: st ? String(st.waiting) : '-',
        running: st ? String(st.running) : '-',
        kv: st?.kvUsage !== undefined && st?.kvUsage !== null ? `${Math.round(st.kvUsage * 100)}%` : '-',
        age: st ? `${Math.max(0, Math.round((now - Number(st.scrapedAtMs)) / 1000))}s` : '-',
      });
    }
  }
  const repRows = [...rep.entries()]
    .sort((a, b) => a[1].model.localeCompare(b[1].model) || a[0].localeCompare(b[0]))
    .map(([id, r]) => [r.model, id, r.node, r.state, r.waiting, r.running, r.kv, r.age]);
  const gpusTotal = nodes.reduce((s, n) => s + (n.info?.gpus.length ?? 0), 0);
  const ready = nodes.filter((n) => n.state === 'NODE_STATE_READY').length;
  return [
    `llmgw top — ${new Date(now).toISOString()} — ${nodes.length} nodes (${ready} ready), ${gpusTotal} GPUs, ${rep.size} replicas`,
    '',
    table(['NODE', 'STATE', 'GPUS FREE', 'UTIL', 'GPU MEM', ...SENSOR_COLUMNS.slice(0, -1), 'HEALTH'], nodeRows),
    '',
    table(['MODEL', 'REPLICA', 'NODE', 'STATE', 'WAITING', 'RUNNING', 'KV', 'SCRAPED'], repRows),
  ].join('\n');
}

/** `ctl top`: GPUs, replicas and load at a glance, refreshed. */
export function registerTop(program: Command, ctx: CtlContext): void {
  withJson(
    program
      .command('top')
      .description('GPUs, replicas and engine load at a glance, refreshed every --interval until interrupted')
      .option('--interval <ms>', 'refresh period', '2000')
      .option('--once', 'print one screen and exit (also what --json does)'),
  ).action(async (o: { interval: string; once?: boolean }, cmd: Command) => {
    const client = ctx.control(cmd);
    const json = !!ctx.opts(cmd).json;
    const screen = async () => (await client.listNodes()).nodes;
    if (json || o.once) {
      const nodes = await screen();
      ctx.out(cmd, nodes, () => topScreen(nodes));
      return;
    }
    let stopped = false;
    const stop = () => (stopped = true);
    process.once('SIGINT', stop);
    try {
      while (!stopped) {
        const nodes = await screen();
        ctx.io.stdout.write('\x1b[2J\x1b[H' + topScreen(nodes) + '\n');
        await new Promise((r) => setTimeout(r, Math.max(250, Number(o.interval) || 2000)));
      }
    } finally {
      process.off('SIGINT', stop);
    }
  });
}

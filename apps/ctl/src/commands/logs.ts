import type { Command } from 'commander';
import { parseDurationMs } from '@llmgw/config';
import type { agentV1, controlV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { parseCount, usage } from '../format';
import { withJson } from './shared';

type Line = agentV1.LogLine__Output;

/**
 * Lines not printed yet: everything after `lastAt`, and at `lastAt` itself
 * only lines not among those already printed at that millisecond (a
 * `since_ms` poll returns them again).
 */
export function newLines(lines: Line[], lastAt: number, printedAtLast: Set<string>): Line[] {
  return lines.filter((l) => l.atMs > lastAt || (l.atMs === lastAt && !printedAtLast.has(l.text)));
}

function render(l: Line): string {
  return `${new Date(l.atMs).toISOString()} ${l.stream === 'LOG_STREAM_STDERR' ? 'E' : ' '} ${l.text}`;
}

/** `ctl logs <replica|shard> [--follow] [--tail N]` and `ctl logs --node <id>` (the agent's own log). */
export function registerLogs(program: Command, ctx: CtlContext): void {
  withJson(
    program
      .command('logs [target]')
      .description("engine output of a shard, or of a replica (its leader shard unless --rank), or with --node alone the node agent's own log")
      .option('--node <node>', 'the node (required for the agent log; narrows a replica or shard lookup)')
      .option('--rank <n>', 'with a replica: the shard of this rank instead of the leader')
      .option('--tail <n>', 'at most this many recent lines', '100')
      .option('--since <duration>', 'only lines from this long ago, e.g. 10m')
      .option('-f, --follow', 'keep printing new lines (polls every --interval) until interrupted')
      .option('--interval <ms>', 'poll period with --follow', '1000')
      .addHelpText(
        'after',
        "\nExamples:\n  llmgw ctl logs llama-8b-7f3a            # a replica: its leader shard\n  llmgw ctl logs llama-8b-7f3a-r1 --tail 500\n  llmgw ctl logs --node gpu-a-01 -f        # the agent's own log",
      ),
  ).action(
    async (target: string | undefined, o: { node?: string; rank?: string; tail: string; since?: string; follow?: boolean; interval: string }, cmd: Command) => {
      if (!target && !o.node) throw usage('name a replica or shard, or --node <id> for the agent log');
      const tail = parseCount(o.tail, '--tail');
      let sinceMs = 0;
      if (o.since) {
        try {
          sinceMs = Date.now() - parseDurationMs(o.since);
        } catch (e) {
          throw usage((e as Error).message);
        }
      }
      const base: controlV1.LogsRequest = target
        ? {
            source: 'LOG_SOURCE_SHARD',
            shardId: target,
            replicaId: target,
            nodeId: o.node ?? '',
            ...(o.rank !== undefined ? { rank: parseCount(o.rank, '--rank'), rankSet: true, shardId: '' } : {}),
          }
        : { source: 'LOG_SOURCE_AGENT', nodeId: o.node! };
      const client = ctx.control(cmd);
      const fetchLines = async (since: number, tailLines: number) => {
        const got: Line[] = [];
        let truncated = false;
        for await (const chunk of client.logs({ ...base, sinceMs: since, tailLines })) {
          got.push(...chunk.lines);
          truncated ||= chunk.truncated;
          if (chunk.errorCode) throw usage(`${chunk.errorCode}: ${chunk.errorMessage}`);
        }
        return { got, truncated };
      };
      const first = await fetchLines(sinceMs, tail);
      const json = !!ctx.opts(cmd).json;
      const print = (lines: Line[]) => {
        if (!lines.length) return;
        if (json) for (const l of lines) ctx.io.stdout.write(JSON.stringify(l) + '\n');
        else ctx.io.stdout.write(lines.map(render).join('\n') + '\n');
      };
      if (first.truncated && !json) ctx.warn("(older lines have already left the agent's buffer)");
      print(first.got);
      if (!o.follow) return;
      let lastAt = first.got.length ? first.got[first.got.length - 1].atMs : sinceMs;
      let atLast = new Set(first.got.filter((l) => l.atMs === lastAt).map((l) => l.text));
      const period = Math.max(200, Number(o.interval) || 1000);
      let stopped = false;
      const stop = () => (stopped = true);
      process.once('SIGINT', stop);
      try {
        while (!stopped) {
          await new Promise((r) => setTimeout(r, period));
          const { got } = await fetchLines(lastAt, 10_000);
          const fresh = newLines(got, lastAt, atLast);
          print(fresh);
          if (fresh.length) {
            const newest = fresh[fresh.length - 1].atMs;
            if (newest !== lastAt) atLast = new Set();
            lastAt = newest;
            for (const l of fresh) if (l.atMs === lastAt) atLast.add(l.text);
          }
        }
      } finally {
        process.off('SIGINT', stop);
      }
    },
  );
}

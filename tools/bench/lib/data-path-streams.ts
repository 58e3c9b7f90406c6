/**
 * The client side of `tools/bench/data-path.ts`'s stream phase (issue 14, 23):
 * N streamed completions opened within 2 s through one router, each read to its
 * end, and what they cost the router in memory: its RSS peak, and — read from
 * its /metrics before the streams and every 500 ms while they run, taking the
 * read with the most streams open — heap, external and RSS bytes per open
 * stream, the figure that depends least on the machine's load. With
 * `heapSnapshot`, the router (started with --heapsnapshot-signal=SIGUSR2)
 * writes a heap snapshot half way through the streams' life.
 */
import { spawnRole, type SpawnedRole } from '@llmgw/testing';
import { Agent, request } from 'undici';
import { procUsage } from './open-loop';

export interface StreamRun {
  url: string;
  /** The router's admin address (its /metrics); absent for a reference proxy, whose RSS is read from /proc. */
  adminUrl?: string;
  /** What the lines call the measured process (default "router"). */
  name?: string;
  pid: number;
  streams: number;
  seconds: number;
  body: string;
  headers: Record<string, string>;
  /** Signal the router to write a heap snapshot at the half-way mark. */
  heapSnapshot?: boolean;
}

interface Mem {
  heap: number;
  /** The JS heap V8 has committed (what RSS holds of it, garbage included). */
  heapTotal: number;
  external: number;
  rss: number;
}

async function memOf(adminUrl: string | undefined, pid: number): Promise<Mem> {
  if (!adminUrl) return { heap: NaN, heapTotal: NaN, external: NaN, rss: procUsage(pid).rssMiB * 2 ** 20 };
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  const v = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  return {
    heap: v('nodejs_heap_size_used_bytes'),
    heapTotal: v('nodejs_heap_size_total_bytes'),
    external: v('nodejs_external_memory_bytes'),
    rss: v('process_resident_memory_bytes'),
  };
}

/** Not read (a reference proxy has no /metrics): '—'. */
const mib = (b: number) => (Number.isFinite(b) ? (b / 2 ** 20).toFixed(0) : '—');

export async function runStreams(o: StreamRun): Promise<{ line: string }> {
  const agent = new Agent({ connections: o.streams + 16, headersTimeout: 600_000, bodyTimeout: 600_000 });
  const cpu0 = procUsage(o.pid).cpuS;
  let peak = procUsage(o.pid).rssMiB;
  let open = 0;
  let peakOpen = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, procUsage(o.pid).rssMiB)), 250);
  const statuses = new Map<string, number>();
  const before = await memOf(o.adminUrl, o.pid);
  const t0 = performance.now();
  // Memory is read every 500 ms; the figure is the read with the most streams open.
  let best: { mem: Mem; open: number } = { mem: before, open: 0 };
  /** The read with the highest RSS, and what it was made of. */
  let atPeak = best;
  let reading = false;
  const reader = setInterval(async () => {
    if (reading) return;
    reading = true;
    const openNow = open;
    const mem = await memOf(o.adminUrl, o.pid).catch(() => undefined);
    if (mem && openNow > best.open) best = { mem, open: openNow };
    if (mem && mem.rss > atPeak.mem.rss) atPeak = { mem, open: openNow };
    reading = false;
  }, 500);
  // Half way through the streams' life, after the 2 s of opening: the heap snapshot, when asked for.
  const snapshot = o.heapSnapshot ? setTimeout(() => process.kill(o.pid, 'SIGUSR2'), 2000 + (o.seconds * 1000) / 2) : undefined;
  await Promise.all(
    Array.from({ length: o.streams }, async (_, i) => {
      await new Promise((r) => setTimeout(r, (i * 2000) / o.streams)); // all open within 2 s
      let outcome = 'ok';
      try {
        const res = await request(`${o.url}/v1/chat/completions`, {
          method: 'POST',
          body: o.body,
          headers: { ...o.headers, 'content-type': 'application/json' },
          dispatcher: agent,
        });
        open++;
        peakOpen = Math.max(peakOpen, open);
        const text = await res.body.text();
        open--;
        if (res.statusCode !== 200) outcome = String(res.statusCode);
        else if (!text.includes('[DONE]')) outcome = 'truncated';
      } catch (e) {
        const err = e as Error & { code?: string; cause?: { code?: string } };
        outcome = `${err.name}${err.code ? ` ${err.code}` : ''}${err.cause?.code ? ` (${err.cause.code})` : ''}: ${err.message.slice(0, 60)}`;
      }
      statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
    }),
  );
  const cpuS = procUsage(o.pid).cpuS - cpu0;
  clearInterval(sampler);
  clearInterval(reader);
  clearTimeout(snapshot);
  await agent.close();
  const m = best;
  const ok = statuses.get('ok') ?? 0;
  const upstream = o.adminUrl ? await (await fetch(`${o.adminUrl}/metrics`)).text() : '';
  const upstreamPeak = [...upstream.matchAll(/^llmgw_upstream_connections\{[^}]*\} (\S+)/gm)].map((x) => Number(x[1]));
  const who = o.name ?? 'router';
  const per = (k: keyof Mem) => (m.open > 0 && Number.isFinite(m.mem[k]) ? ((m.mem[k] - before[k]) / m.open / 1024).toFixed(1) : '—');
  return {
    line:
      `  ok ${ok} of ${o.streams}, errors ${o.streams - ok} ${JSON.stringify(Object.fromEntries(statuses))}, peak open ${peakOpen}, ` +
      `${upstreamPeak.length ? `upstream connections per engine at the end ${JSON.stringify(upstreamPeak)}, ` : ''}wall ${((performance.now() - t0) / 1000).toFixed(1)}s, ${who} CPU ${cpuS.toFixed(1)} s, ` +
      `${who} RSS peak ${peak.toFixed(0)} MiB (goal: 0 errors, < 300 MiB)\n` +
      `  at the most streams open (${m.open}): ${who} RSS ${(m.mem.rss / 2 ** 20).toFixed(0)} MiB (${(before.rss / 2 ** 20).toFixed(0)} before); ` +
      `per open stream: RSS ${per('rss')} KiB, JS heap used ${per('heap')} KiB, committed ${per('heapTotal')} KiB, external ${per('external')} KiB (goal: < 60 KiB)\n` +
      `  at the highest RSS read (${atPeak.open} open): RSS ${mib(atPeak.mem.rss)} MiB, JS heap used ${mib(atPeak.mem.heap)} MiB, committed ${mib(atPeak.mem.heapTotal)} MiB, external ${mib(atPeak.mem.external)} MiB`,
  };
}

/** Three sim-engines serving model `slow` at `tps` tokens per second, each with slots and KV room for all `streams` at once. */
export function streamEngines(streams: number, seconds: number, tps: number, opts: Parameters<typeof spawnRole>[2]): Promise<SpawnedRole[]> {
  // KV room for every stream at once (each needs ⌈(prompt + max_tokens) / 16⌉ + 1 blocks): with the
  // default 8192 blocks, admission's KV saturation held the streams back at ~2200 open of 5000.
  const blocks = Math.max(8192, streams * (Math.ceil((Math.ceil(seconds * tps) + 16) / 16) + 1));
  const args = ['--port', '0', '--model', 'slow', '--decode-tps', String(tps), '--prefill-tps', '0', '--max-num-seqs', String(streams)];
  args.push('--batch-contention', '0', '--num-gpu-blocks', String(blocks), '--log-level', 'info');
  return Promise.all([0, 1, 2].map(() => spawnRole('sim-engine', args, opts)));
}

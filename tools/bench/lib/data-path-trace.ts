/**
 * The trace of a load step (issue 23, `tools/bench/data-path.ts --trace-step`):
 * while the open-loop generator steps its rate, the router's admin /metrics is
 * read every `everyMs` and, per window, what the process did is printed beside
 * what the clients saw: the p99/max latency of the requests due in the window,
 * the router's CPU, its event-loop delay (max), GC time by kind, open upstream
 * and client connections, and how many requests the admission service granted
 * by an Acquire call rather than the router's credit, and the connections waiting in the kernel's
 * accept queue of the router's client port (libuv accepts one per listening socket per event-loop
 * turn, so a busy router lets a connection surge queue there, docs/performance.md). Reading /metrics costs the router about a millisecond
 * per read, so traced runs are not the figures; they say where a stall comes from.
 */
import { listeningSockets } from '@llmgw/testing';
import { latencies, pct, procUsage, type Sample } from './open-loop';

/** One sample of the router's state: cumulative counters and current gauges. */
interface Snap {
  t: number;
  cpuS: number;
  rssMiB: number;
  lagMaxMs: number;
  gcMs: Record<string, number>;
  upstream: number;
  clientSockets: number;
  /** Requests the admission service granted through Acquire (not on credit), cumulative. */
  acquired: number;
  /** Requests the router itself timed (arrival to last byte) at over 0.5 s, cumulative: a client's slower answers beyond these waited outside the router (connect, accept, the kernel). */
  slow: number;
  /** Requests that waited on a shared-counter call (no counter lease to admit them), cumulative. */
  shared: number;
  /** Connections the kernel has completed on the client port and the router has not accepted yet (all its listening sockets). */
  acceptQueue: number;
}

/** prom-client's monitorEventLoopDelay resolution (its default eventLoopMonitoringPrecision). */
const PROM_LAG_RESOLUTION_MS = 10;

const num = (text: string, re: RegExp): number[] => [...text.matchAll(re)].map((m) => Number(m[1]));

async function snap(adminUrl: string, pid: number, port: number, t0: number, admissionAdminUrl?: string): Promise<Snap | undefined> {
  const text = await fetch(`${adminUrl}/metrics`)
    .then((r) => r.text())
    .catch(() => '');
  if (!text) return undefined;
  const gcMs: Record<string, number> = {};
  for (const m of text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*kind="(\w+)"[^}]*\} (\S+)/gm)) gcMs[m[1]] = 1000 * Number(m[2]);
  const adm = admissionAdminUrl
    ? await fetch(`${admissionAdminUrl}/metrics`)
        .then((r) => r.text())
        .catch(() => '')
    : '';
  const u = procUsage(pid);
  return {
    t: performance.now() - t0,
    cpuS: u.cpuS,
    rssMiB: u.rssMiB,
    // monitorEventLoopDelay's max since the previous read (prom-client resets it on each collect). Its
    // histogram holds whole intervals of its 10 ms timer (an idle loop reads 10.1 ms): the delay is what is over that.
    lagMaxMs: Math.max(0, 1000 * (num(text, /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)/gm)[0] ?? NaN) - PROM_LAG_RESOLUTION_MS),
    gcMs,
    upstream: num(text, /^llmgw_upstream_connections\{[^}]*\} (\S+)/gm).reduce((a, b) => a + b, 0),
    clientSockets: num(text, /^nodejs_active_handles\{type="Socket"[^}]*\} (\S+)/gm)[0] ?? NaN,
    acquired: num(adm, /^llmgw_admission_wait_seconds_count\{[^}]*\} (\S+)/gm).reduce((a, b) => a + b, 0),
    shared: num(text, /^llmgw_tenancy_counter_admissions_total\{[^}]*path="shared"[^}]*\} (\S+)/gm).reduce((a, b) => a + b, 0),
    acceptQueue: listeningSockets(port).reduce((n, l) => n + l.acceptQueue, 0),
    slow:
      num(text, /^llmgw_request_duration_seconds_count\{[^}]*\} (\S+)/gm).reduce((a, b) => a + b, 0) -
      num(text, /^llmgw_request_duration_seconds_bucket\{[^}]*le="0\.5"[^}]*\} (\S+)/gm).reduce((a, b) => a + b, 0),
  };
}

/**
 * Runs `load` (it starts its clock when called) while sampling the router; prints one line per
 * window from `fromMs` to `toMs` of the load's schedule.
 */
export async function traceStep(
  o: { adminUrl: string; pid: number; port: number; admissionAdminUrl?: string; everyMs?: number; fromMs: number; toMs: number },
  load: () => Promise<Sample[]>,
): Promise<Sample[]> {
  const every = o.everyMs ?? 100;
  const t0 = performance.now();
  const snaps: Snap[] = [];
  let stop = false;
  const sampler = (async () => {
    while (!stop) {
      const s = await snap(o.adminUrl, o.pid, o.port, t0, o.admissionAdminUrl);
      if (s) snaps.push(s);
      const next = every - ((performance.now() - t0) % every);
      await new Promise((r) => setTimeout(r, next));
    }
  })();
  const samples = await load();
  stop = true;
  await sampler;
  console.log(
    '    window ms   due  p99 ms  max ms | router CPU %  loop delay max ms  GC ms (scavenge/mark)  upstream conns  sockets  RSS MiB  Acquire RPCs  router > 0.5 s  shared-counter waits  accept queue',
  );
  for (let w = o.fromMs; w < o.toMs; w += every) {
    const lat = latencies(samples, w, w + every);
    const a = [...snaps].reverse().find((s) => s.t <= w + 5);
    const b = snaps.find((s) => s.t >= w + every - 5);
    if (!a || !b || b.t <= a.t) continue;
    const dt = (b.t - a.t) / 1000;
    const gc = (k: string) => ((b.gcMs[k] ?? 0) - (a.gcMs[k] ?? 0)).toFixed(1);
    const due = samples.filter((s) => s.at >= w && s.at < w + every).length;
    console.log(
      `    ${String(w).padStart(5)}-${String(w + every).padEnd(5)} ${String(due).padStart(5)} ${pct(lat, 99).toFixed(1).padStart(7)} ${(lat.length ? Math.max(...lat) : NaN).toFixed(1).padStart(7)} | ${((100 * (b.cpuS - a.cpuS)) / dt).toFixed(0).padStart(11)} ${b.lagMaxMs.toFixed(1).padStart(18)} ${`${gc('minor')}/${gc('major')}`.padStart(22)} ${String(b.upstream).padStart(15)} ${String(b.clientSockets).padStart(8)} ${b.rssMiB.toFixed(0).padStart(8)} ${String(b.acquired - a.acquired).padStart(13)} ${String(b.slow - a.slow).padStart(14)} ${String(b.shared - a.shared).padStart(21)} ${String(b.acceptQueue).padStart(13)}`,
    );
  }
  return samples;
}

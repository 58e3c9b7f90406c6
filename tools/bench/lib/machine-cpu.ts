/**
 * The whole machine's CPU while a proxy is under load, and who has it: the proxy, the load
 * generator (this bench's own process), the engines, the services behind the router, and the
 * rest (Postgres, the kernel's threads, anything else running). On a small machine a proxy's
 * ceiling is what the rest leaves it: the load generator and the engines grow with the rate too
 * (docs/performance.md, "A cold router into full load, and the whole machine beside the ladder").
 */
import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';
import { CLK_TCK, procUsage } from './open-loop';

/** Busy and total ticks of all CPUs, from /proc/stat's first line (idle and iowait count as idle). */
function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  // cpu user nice system idle iowait irq softirq steal (guest time is inside user already)
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3] - f[4], total };
}

export interface CpuGroup {
  name: string;
  /** Its processes; a pid that is gone counts nothing. */
  pids: Array<number | undefined>;
}

export interface MachineShare {
  /** The machine's CPUs (os.cpus()). */
  cores: number;
  /** Cores busy on average over the interval, all processes and the kernel. */
  busy: number;
  /** Cores each group had on average; `load generator` is this process. */
  groups: Array<{ name: string; cores: number }>;
  /** Busy cores no group accounts for. */
  rest: number;
  seconds: number;
}

function cpuS(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return procUsage(pid).cpuS;
  } catch {
    return 0;
  }
}

/** Starts counting; the function it returns gives the machine's CPU and each group's since. */
export function machineSince(groups: CpuGroup[]): () => MachineShare {
  const t0 = performance.now();
  const m0 = machineTicks();
  const self0 = process.cpuUsage();
  const g0 = groups.map((g) => g.pids.map(cpuS));
  return () => {
    const seconds = (performance.now() - t0) / 1000;
    const m1 = machineTicks();
    const self = process.cpuUsage(self0);
    const measured = [
      ...groups.map((g, i) => ({ name: g.name, cores: g.pids.reduce<number>((n, pid, j) => n + cpuS(pid) - g0[i][j], 0) / seconds })),
      { name: 'load generator', cores: (self.user + self.system) / 1e6 / seconds },
    ];
    const accounted = measured.reduce((n, g) => n + g.cores, 0);
    // /proc/stat's busy time is sampled at the timer tick, a process's own time is what the scheduler
    // measured: where the work comes in short bursts between idle periods (one request at a time,
    // each waking another process) the machine can read less busy than its processes add up to
    // (0.72 against 0.88 cores here). It never reads less than what the groups measured.
    const busy = Math.max((m1.busy - m0.busy) / CLK_TCK / seconds, accounted);
    return { cores: cpus().length, busy, groups: measured, rest: Math.max(0, busy - accounted), seconds };
  };
}

/** One line: `machine: 1.93 of 2 cores busy (router 0.95, load generator 0.41, …, the rest 0.07)`. */
export function machineLine(m: MachineShare): string {
  const parts = m.groups.filter((g) => g.cores >= 0.005).map((g) => `${g.name} ${g.cores.toFixed(2)}`);
  return `machine: ${m.busy.toFixed(2)} of ${m.cores} cores busy (${[...parts, `the rest ${m.rest.toFixed(2)}`].join(', ')})`;
}

/** CPU µs per request of everything on the machine but `proxy` (its name in `groups`), over `requests` sent. */
export function restPerRequestUs(m: MachineShare, proxy: string, requests: number): number {
  const own = m.groups.find((g) => g.name === proxy)?.cores ?? 0;
  return ((m.busy - own) * m.seconds * 1e6) / requests;
}

/**
 * How long a process's main thread (its event loop) has waited runnable for a CPU, in ms, from
 * /proc/PID/task/PID/schedstat (ns on the CPU, ns waiting on a run queue, time slices). A request
 * that arrives while the loop waits for a CPU waits with it, however little the loop has to do.
 */
export function runQueueWaitMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return NaN;
  }
}

/** CPU µs per request of `proxy` alone. */
export function proxyPerRequestUs(m: MachineShare, proxy: string, requests: number): number {
  return ((m.groups.find((g) => g.name === proxy)?.cores ?? 0) * m.seconds * 1e6) / requests;
}

/**
 * Starts counting the machine and `proxy`'s event loop's waits for a CPU; the function it returns
 * gives the printed line for `requests` requests sent since: the machine's share (machineLine) and
 * how much of the time the proxy's loop was runnable but not running.
 */
export function phaseMachine(proxy: CpuGroup, others: CpuGroup[]): (requests: number) => string {
  const pid = proxy.pids[0];
  const wait0 = runQueueWaitMs(pid);
  const machine = machineSince([proxy, ...others]);
  return (requests) => {
    const m = machine();
    const waitMs = runQueueWaitMs(pid) - wait0;
    const wait = Number.isFinite(waitMs)
      ? `; its event loop waited for a CPU ${((100 * waitMs) / (m.seconds * 1000)).toFixed(1)} % of the time (${((1000 * waitMs) / requests).toFixed(0)} µs per request)`
      : '';
    return `          ${machineLine(m)}${wait}`;
  };
}

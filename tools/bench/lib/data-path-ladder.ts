/**
 * The data-path bench's saturation ladder: each proxy (nginx, the bare Node proxy, the router)
 * climbs the same rates until its p99 passes 100 ms or a request fails, with the whole machine's
 * CPU beside each step (lib/machine-cpu.ts). After the ladders, one line says what the top rate
 * leaves the router on this machine: its cores per request, less what the load generator and the
 * engines took at that rate (through nginx) and what the router's services took at its own steps.
 */
import { traceStep } from './data-path-trace';
import { machineLine, machineSince, proxyPerRequestUs, restPerRequestUs, type CpuGroup, type MachineShare } from './machine-cpu';
import { failures, latencies, openLoopPhases, pct, type Sample } from './open-loop';

export interface Climber {
  name: string;
  url: string;
  pid?: number;
  headers?: Record<string, string>;
}

export interface LadderOptions {
  rates: number[];
  seconds: number;
  body: string;
  /** The engines behind the proxies, and the router's services (admission, accounting, Redis). */
  engines: Array<number | undefined>;
  services: Array<number | undefined>;
  /** --trace-ladder: the router's state for the first `toMs` of each of its rates. */
  trace?: { adminUrl: string; pid: number; port: number; admissionAdminUrl?: string; toMs: number };
}

interface Step {
  rate: number;
  sent: number;
  ok: boolean;
  m: MachineShare;
}

const f = (x: number, w = 9) => (Number.isFinite(x) ? x.toFixed(2) : '—').padStart(w);
const us = (x: number) => `${Math.round(x)} µs`;

/** Runs every climber's ladder in turn (printing a line per step and the machine's CPU under it), then the budget line. */
export async function runLadders(climbers: Climber[], o: LadderOptions): Promise<void> {
  const steps = new Map<string, Step[]>();
  for (const t of climbers) {
    const own: Step[] = [];
    steps.set(t.name, own);
    const groups: CpuGroup[] = [
      { name: t.name, pids: [t.pid] },
      { name: 'engines', pids: o.engines },
      { name: 'services', pids: o.services },
    ];
    for (const rate of o.rates) {
      const machine = machineSince(groups);
      const climb = () => openLoopPhases(t.url, [{ rate, seconds: o.seconds }], { body: o.body, headers: t.headers, connections: 2048 });
      const s: Sample[] = o.trace && t.name === 'router' ? await traceStep({ ...o.trace, fromMs: 0 }, climb) : await climb();
      const m = machine();
      // The proxy's CPU per request, from the same reading as the machine's line.
      const cpu = t.pid ? `  CPU/request ${(proxyPerRequestUs(m, t.name, s.length) / 1000).toFixed(2)} ms` : '';
      const lat = latencies(s, 1000);
      const ok = pct(lat, 99) < 100 && failures(s) === 0;
      own.push({ rate, sent: s.length, ok, m });
      console.log(
        `  ${t.name.padEnd(18)} ${String(rate).padStart(5)}/s  p50 ${f(pct(lat, 50))}  p99 ${f(pct(lat, 99))}  failed ${failures(s)}  ${ok ? 'sustained' : 'saturated'}${cpu}`,
      );
      console.log(`  ${''.padEnd(18)}          ${machineLine(m)}`);
      if (!ok) break;
    }
  }
  const line = budgetLine(steps, Math.max(...o.rates));
  if (line) console.log(line);
}

/**
 * What `top` req/s leaves the router per request: the machine's cores over the rate, less the
 * load generator's, the engines' and the rest's CPU at that rate (nginx's step, where nothing else
 * runs), less what the router's services cost per request beyond that (its last sustained step
 * against nginx's at the same rate). An upper bound: it assumes a machine 100 % busy.
 */
export function budgetLine(steps: Map<string, Step[]>, top: number): string | undefined {
  const ng = steps.get('nginx')?.find((s) => s.rate === top && s.ok);
  const router = steps.get('router');
  if (!ng || !router?.length) return undefined;
  const at = [...router].reverse().find((s) => s.ok) ?? router[0];
  const ngAt = steps.get('nginx')?.find((s) => s.rate === at.rate);
  const aroundNginx = restPerRequestUs(ng.m, 'nginx', ng.sent);
  const services = ngAt ? Math.max(0, restPerRequestUs(at.m, 'router', at.sent) - restPerRequestUs(ngAt.m, 'nginx', ngAt.sent)) : NaN;
  const left = (ng.m.cores * 1e6) / top - aroundNginx - services;
  const bare = steps.get('node (bare proxy)')?.find((s) => s.rate === top);
  return (
    `  what ${top} req/s leaves the router here: ${ng.m.cores} cores are ${us((ng.m.cores * 1e6) / top)} per request; through nginx at ${top}/s the load generator, ` +
    `the engines and the rest took ${us(aroundNginx)} of it; behind the router its services took ${us(services)} more (at ${at.rate}/s): ` +
    `at most ${us(Math.min(left, 1e6 / top))} per request for the router (the machine, 100 % busy, leaves ${us(left)}; one event loop has one core: ${us(1e6 / top)}). It spent ${us(proxyPerRequestUs(at.m, 'router', at.sent))} at ${at.rate}/s` +
    (bare ? `; the bare Node proxy ${us(proxyPerRequestUs(bare.m, 'node (bare proxy)', bare.sent))} at ${top}/s` : '')
  );
}

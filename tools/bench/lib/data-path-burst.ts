/**
 * A burst of new connections into a busy proxy (`tools/bench/data-path.ts --burst N`): while
 * steady open-loop load runs at `rate`, N clients that have no connection yet each open one and
 * send one request at the same instant, as a client fleet does when it scales up or reconnects
 * after a failover. What the new clients wait for is mostly the proxy taking their connections
 * from the kernel's accept queue (docs/performance.md, "One connection per event-loop turn").
 */
import { Client } from 'undici';
import { latencies, openLoopPhases, pct, type Sample } from './open-loop';

export interface BurstResult {
  /** Latencies (ms) of the burst's requests that got a 200, connect included. */
  burst: number[];
  burstFailed: number;
  /** Latencies of the steady requests due in the second after the burst. */
  steadyAfter: number[];
  steady: Sample[];
}

/** One request on a connection of its own: connect, send, read the answer, close. */
async function fresh(url: string, body: string, headers: Record<string, string>): Promise<number | undefined> {
  const t = performance.now();
  const c = new Client(url, { pipelining: 1 });
  try {
    const res = await c.request({ path: '/v1/chat/completions', method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    await res.body.dump();
    return res.statusCode === 200 ? performance.now() - t : undefined;
  } catch {
    return undefined;
  } finally {
    void c.close().catch(() => {});
  }
}

export async function connectionBurst(
  url: string,
  o: { body: string; headers?: Record<string, string>; rate: number; seconds: number; burst: number; atMs: number },
): Promise<BurstResult> {
  const headers = o.headers ?? {};
  const steadyRun = openLoopPhases(url, [{ rate: o.rate, seconds: o.seconds }], { body: o.body, headers });
  await new Promise((r) => setTimeout(r, o.atMs));
  const results = await Promise.all(Array.from({ length: o.burst }, () => fresh(url, o.body, headers)));
  const steady = await steadyRun;
  const burst = results.filter((x): x is number => x !== undefined);
  return { burst, burstFailed: o.burst - burst.length, steadyAfter: latencies(steady, o.atMs, o.atMs + 1000), steady };
}

/** One printed line of a burst's result. */
export function burstLine(name: string, r: BurstResult): string {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '—').padStart(8);
  return `  ${name.padEnd(26)} new clients p50 ${f(pct(r.burst, 50))}  p99 ${f(pct(r.burst, 99))}  max ${f(Math.max(...r.burst))}  failed ${r.burstFailed}   steady p99 in the second after ${f(pct(r.steadyAfter, 99))}`;
}

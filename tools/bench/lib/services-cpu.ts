/**
 * What the services behind the measured router spend per request while it is under load:
 * admission, accounting (the usage ingest) and the local Redis (the settle scripts, the ledger
 * reads). A process of theirs that wakes per request takes CPU from the router on a small machine
 * even when the router never waits on it (docs/performance.md, "The usage ingest woke per record").
 */
import { spawnSync } from 'node:child_process';
import { procUsage } from './open-loop';

/** The pid of the Redis on 127.0.0.1:6379, when redis-cli can ask it. */
export function localRedisPid(): number | undefined {
  const r = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'info', 'server'], { encoding: 'utf8' });
  const m = /^process_id:(\d+)/m.exec(r.stdout ?? '');
  return m ? Number(m[1]) : undefined;
}

type Proc = { name: string; pid: number | undefined };

/** Admission, accounting and the local Redis, by pid. */
export function behindRouter(admission: number | undefined, accounting: number | undefined): Proc[] {
  return [
    { name: 'admission', pid: admission },
    { name: 'accounting', pid: accounting },
    { name: 'Redis', pid: localRedisPid() },
  ];
}

/** Starts counting the CPU of `who` (those with a pid); the function it returns gives each one's CPU seconds since. */
export function cpuSince(who: Proc[]): () => Array<{ name: string; cpuS: number }> {
  const known = who.filter((w): w is { name: string; pid: number } => w.pid !== undefined);
  const u0 = known.map((w) => procUsage(w.pid).cpuS);
  return () => known.map((w, i) => ({ name: w.name, cpuS: procUsage(w.pid).cpuS - u0[i] }));
}

/** Starts counting; the function it returns gives the line for `requests` requests sent since. */
export function servicesCpu(who: Proc[]): (requests: number) => string {
  const since = cpuSince(who);
  return (requests) => {
    const per = since().map((w) => `${w.name} ${((1e6 * w.cpuS) / requests).toFixed(0)} µs`);
    return `          the services' CPU per request meanwhile: ${per.join(', ')}`;
  };
}

/** Waits `seconds` and says what share of a core each of `who` burned meanwhile, with no load: `idle for 5s, CPU of a core: router 1.2 %, …`. */
export async function idleLine(who: Proc[], seconds: number): Promise<string> {
  const since = cpuSince(who);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const idle = since().map((w) => `${w.name} ${((100 * w.cpuS) / seconds).toFixed(1)} %`);
  return `idle for ${seconds}s, CPU of a core: ${idle.join(', ')}`;
}

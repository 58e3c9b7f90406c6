import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatLoad, findRepoRoot, freePort, loadSummary as summary, spawnRole, type SpawnedRole, waitUntil } from '@llmgw/testing';

// deploy/loadbalancer/haproxy.cfg in front of three router processes that share one admission
// service, over two sim-engines: SIGKILL one router and only requests in flight on it fail;
// SIGTERM one (drain_delay) and it turns not-ready first, the balancer stops sending, nothing fails.
const haveHaproxy = spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
if (!haveHaproxy) console.warn('load-balancer test skipped: haproxy is not installed (apt-get install -y haproxy; .ci/run installs it)');
jest.setTimeout(400_000);

const CFG = join(findRepoRoot(), 'deploy/loadbalancer/haproxy.cfg');
const dir = mkdtempSync(join(tmpdir(), 'llmgw-lb-'));

(haveHaproxy ? describe : describe.skip)('routers behind haproxy (deploy/loadbalancer)', () => {
  let engines: SpawnedRole[] = [];
  let admission: SpawnedRole;
  const routers: SpawnedRole[] = [];
  let lb: ChildProcess;
  let lbUrl: string;
  const lbLog: string[] = [];

  beforeAll(async () => {
    engines = await Promise.all(
      [0, 1].map(() => spawnRole('sim-engine', ['--port', '0', '--model', 'm', '--decode-tps', '100', '--max-tokens-default', '20'], { timeoutMs: 60_000 })),
    );
    const endpoints = engines.map((e, i) => ({ name: `e${i}`, url: e.url, model: 'm' }));
    const admissionCfg = join(dir, 'admission.yaml');
    writeFileSync(admissionCfg, JSON.stringify({ listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', scrape_interval: '200ms', endpoints }));
    admission = await spawnRole('admission', ['--config', admissionCfg], { timeoutMs: 60_000 });
    const routerCfg = join(dir, 'router.yaml');
    writeFileSync(
      routerCfg,
      JSON.stringify({
        scrape_interval: '200ms',
        drain_delay: '8s',
        shutdown_grace: '10s',
        admission: { mode: 'remote', address: new URL(admission.url).host },
        endpoints,
      }),
    );
    routers.push(
      ...(await Promise.all([0, 1, 2].map(() => spawnRole('router', ['--config', routerCfg, '--port', '0', '--admin-port', '0'], { timeoutMs: 150_000 })))),
    );
    const port = await freePort();
    lbUrl = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = { ...process.env, LLMGW_LB_BIND: `127.0.0.1:${port}` } as Record<string, string>;
    routers.forEach((r, i) => {
      env[`LLMGW_ROUTER_${i + 1}`] = new URL(r.url).host;
      env[`LLMGW_ROUTER_${i + 1}_ADMIN_PORT`] = new URL(r.urls.admin).port;
    });
    lb = spawn('haproxy', ['-f', CFG, '-db'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    lb.stdout!.on('data', (b: Buffer) => lbLog.push(b.toString()));
    lb.stderr!.on('data', (b: Buffer) => lbLog.push(b.toString()));
    // Every router in rotation: answers through the balancer from all three.
    const seen = new Set<string>();
    await waitUntil(
      async () => {
        const r = await fetch(`${lbUrl}/v1/models`).catch(() => undefined);
        const who = r?.headers.get('x-llmgw-router');
        if (r?.status === 200 && who) seen.add(who);
        return seen.size === 3;
      },
      () => `all three routers behind the balancer (haproxy said: ${lbLog.join('').slice(-800)})`,
      { timeoutMs: 30_000, everyMs: 100 },
    );
  });

  afterAll(async () => {
    if (lb?.pid) {
      try {
        process.kill(-lb.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await Promise.all(routers.map((r) => r.stop('SIGKILL').catch(() => undefined)));
    await admission?.stop();
    await Promise.all(engines.map((e) => e.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILL: only the requests in flight on the killed router fail', async () => {
    const l = chatLoad(lbUrl, 12, { model: 'm' });
    await waitUntil(
      () => l.outcomes.filter((o) => o.ok).length >= 30,
      () => `steady load (${summary(l.outcomes)})`,
      { timeoutMs: 90_000, everyMs: 100 },
    );
    const victim = routers[1];
    const exited = new Promise((r) => victim.proc.once('exit', r));
    const killedAt = performance.now();
    victim.proc.kill('SIGKILL');
    // The signal takes effect a moment later: a request that reached the router in between was in
    // flight on it when it died. What must not fail is a request started once it was gone.
    await exited;
    const diedAt = performance.now();
    const afterKill = () => l.outcomes.filter((o) => o.startedAt > diedAt);
    await waitUntil(
      () => afterKill().filter((o) => o.ok).length >= 30,
      () => `load after the kill (${summary(l.outcomes)})`,
      { timeoutMs: 90_000, everyMs: 100 },
    );
    const all = await l.stop();
    const failed = all.filter((o) => !o.ok);
    // Everything that failed was already running when the router died…
    expect(failed.filter((o) => o.startedAt > diedAt)).toEqual([]);
    expect(failed.every((o) => o.endedAt >= killedAt)).toBe(true);
    // …and no more failed than there were requests in flight (12 clients at most).
    expect(failed.length).toBeLessThanOrEqual(12);
    // After the kill, the other two carry everything.
    expect(new Set(afterKill().map((o) => o.router))).toEqual(new Set(['router1', 'router3']));
  });

  it('SIGTERM: the router turns not-ready, the balancer stops sending, no request fails', async () => {
    const r = routers[0];
    const l = chatLoad(lbUrl, 12, { model: 'm' });
    await waitUntil(
      () => l.outcomes.filter((o) => o.ok).length >= 30,
      () => `steady load (${summary(l.outcomes)})`,
      { timeoutMs: 90_000, everyMs: 100 },
    );
    // Not stop(): that turns into SIGKILL after 5 s, and draining takes drain_delay plus the running requests.
    const exited = new Promise<number | null>((res) => r.proc.once('exit', (code) => res(code)));
    r.proc.kill('SIGTERM');
    // Not ready at once, while still serving.
    await waitUntil(
      async () =>
        (await fetch(`${r.urls.admin}/readyz`)
          .then((x) => x.status)
          .catch(() => 0)) === 503,
      'router1 not ready',
      { timeoutMs: 5_000, everyMs: 100 },
    );
    const code = await exited;
    const drainedAt = performance.now();
    await waitUntil(
      () => l.outcomes.filter((o) => o.startedAt > drainedAt && o.ok).length >= 30,
      () => `load after the drain (${summary(l.outcomes)})`,
      { timeoutMs: 90_000, everyMs: 100 },
    );
    const all = await l.stop();
    expect(code).toBe(0);
    expect(all.filter((o) => !o.ok)).toEqual([]);
    expect(new Set(all.filter((o) => o.startedAt > drainedAt).map((o) => o.router))).toEqual(new Set(['router3']));
  });
});
